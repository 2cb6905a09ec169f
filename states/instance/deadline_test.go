package instance

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// syncBuffer is a writer the notice timer and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// silentServer accepts connections and never answers, as a hung etcd (or a
// proxy in front of a stopped one) does.
func silentServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return l.Addr().String()
}

func TestHungEtcdGetsANoticeAndADeadline(t *testing.T) {
	addr := silentServer(t)
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{addr}, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	inst := New(cli, models.NewLayout("by-dev", "meta"), []string{addr})
	var notice syncBuffer
	inst.Notice, inst.NoticeAfter, inst.RequestTimeout = &notice, 50*time.Millisecond, time.Second
	_, err = inst.Revision(context.Background())
	var na *NoAnswerError
	if !errors.As(err, &na) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want a NoAnswerError, got %v", err)
	}
	if !strings.Contains(err.Error(), "etcd at "+addr+" did not answer within 1s") {
		t.Fatalf("error: %v", err)
	}
	if !strings.Contains(notice.String(), "waiting for etcd at "+addr+": no answer for ") {
		t.Fatalf("no notice: %q", notice.String())
	}
	// Transactions (the write path) are bounded the same way.
	_, err = inst.Txn(context.Background()).Then(clientv3.OpGet("k")).Commit()
	if !errors.As(err, &na) {
		t.Fatalf("txn: want a NoAnswerError, got %v", err)
	}
}

func TestAnsweringEtcdGetsNoNotice(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	inst := New(cli, models.NewLayout("by-dev", "meta"), []string{ep})
	var notice syncBuffer
	inst.Notice = &notice
	if _, err := inst.Revision(context.Background()); err != nil {
		t.Fatal(err)
	}
	if notice.String() != "" {
		t.Fatalf("notice for an answered request: %q", notice.String())
	}
}
