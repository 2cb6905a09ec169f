package chaos

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Cluster is etcd server processes (Debian's etcd-server: real members
// that SIGKILL and SIGSTOP reach), 1 or 3 members on loopback ports.
type Cluster struct {
	members []*member
	client  *clientv3.Client
}

type member struct {
	name      string
	dir       string
	clientURL string
	peerURL   string
	args      []string
	cmd       *exec.Cmd
	done      chan struct{}
	stopped   bool // SIGSTOPped
	log       *os.File
}

// StartCluster starts n members in dir; quota > 0 sets
// --quota-backend-bytes (the NOSPACE schedules).
func StartCluster(ctx context.Context, dir string, n int, quota int64) (*Cluster, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		c, err := startCluster(ctx, filepath.Join(dir, fmt.Sprintf("etcd%d", attempt)), n, quota)
		if err == nil {
			return c, nil
		}
		lastErr = err // a port taken meanwhile by a process beside this one: try others
	}
	return nil, lastErr
}

func startCluster(ctx context.Context, dir string, n int, quota int64) (*Cluster, error) {
	c := &Cluster{}
	var initial []string
	for i := range n {
		cp, err := freePort()
		if err != nil {
			return nil, err
		}
		pp, err := freePort()
		if err != nil {
			return nil, err
		}
		m := &member{name: fmt.Sprintf("m%d", i), dir: filepath.Join(dir, fmt.Sprintf("m%d", i)),
			clientURL: fmt.Sprintf("http://127.0.0.1:%d", cp), peerURL: fmt.Sprintf("http://127.0.0.1:%d", pp)}
		c.members = append(c.members, m)
		initial = append(initial, m.name+"="+m.peerURL)
	}
	for _, m := range c.members {
		m.args = []string{"--name", m.name, "--data-dir", m.dir,
			"--listen-client-urls", m.clientURL, "--advertise-client-urls", m.clientURL,
			"--listen-peer-urls", m.peerURL, "--initial-advertise-peer-urls", m.peerURL,
			"--initial-cluster", strings.Join(initial, ","), "--initial-cluster-state", "new",
			"--heartbeat-interval", "50", "--election-timeout", "500", "--snapshot-count", "100000"}
		if quota > 0 {
			m.args = append(m.args, "--quota-backend-bytes", fmt.Sprint(quota))
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := m.start(); err != nil {
			c.Close()
			return nil, err
		}
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		c.Close()
		return nil, err
	}
	c.client = cli
	deadline := time.Now().Add(30 * time.Second)
	for {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err = cli.Put(cctx, "chaos-ready", "1")
		cancel()
		if err == nil {
			break
		}
		for _, m := range c.members {
			if m.exited() {
				c.Close()
				return nil, fmt.Errorf("etcd %s exited at its start (log %s)", m.name, m.log.Name())
			}
		}
		if time.Now().After(deadline) {
			c.Close()
			return nil, fmt.Errorf("etcd cluster of %d did not answer in 30 s: %v", n, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := cli.Delete(ctx, "chaos-ready"); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (m *member) start() error {
	if m.log == nil {
		f, err := os.OpenFile(m.dir+".log", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		m.log = f
	}
	cmd := exec.Command("etcd", m.args...)
	cmd.Stdout, cmd.Stderr = m.log, m.log
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("etcd: %w (install etcd-server)", err)
	}
	m.cmd, m.done, m.stopped = cmd, make(chan struct{}), false
	go func() { _ = cmd.Wait(); close(m.done) }()
	return nil
}

func (m *member) exited() bool { return closed(m.done) }

// closed reports whether done, closed when a process was waited for, is.
func closed(done chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// Endpoints are the members' client addresses (HOST:PORT).
func (c *Cluster) Endpoints() []string {
	var out []string
	for _, m := range c.members {
		out = append(out, strings.TrimPrefix(m.clientURL, "http://"))
	}
	return out
}

// Client is a client of every member.
func (c *Cluster) Client() *clientv3.Client { return c.client }

// Size is the number of members.
func (c *Cluster) Size() int { return len(c.members) }

// Leader is the index of the member that leads (-1: none answered).
func (c *Cluster) Leader(ctx context.Context) int {
	for i, m := range c.members {
		if m.exited() || m.stopped {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		st, err := c.client.Status(cctx, strings.TrimPrefix(m.clientURL, "http://"))
		cancel()
		if err == nil && st.Header.MemberId == st.Leader {
			return i
		}
	}
	return -1
}

// Kill sends SIGKILL to member i and waits for it.
func (c *Cluster) Kill(i int) {
	m := c.members[i]
	if m.exited() {
		return
	}
	if m.stopped {
		_ = m.cmd.Process.Signal(syscall.SIGCONT)
	}
	_ = m.cmd.Process.Kill()
	<-m.done
}

// Restart starts a killed member again on its data.
func (c *Cluster) Restart(i int) error {
	m := c.members[i]
	if !m.exited() {
		return nil
	}
	args := make([]string, 0, len(m.args))
	for j := 0; j < len(m.args); j++ {
		if m.args[j] == "--initial-cluster-state" {
			j++
			continue
		}
		args = append(args, m.args[j])
	}
	m.args = args
	return m.start()
}

// Freeze sends SIGSTOP to member i; Thaw sends SIGCONT.
func (c *Cluster) Freeze(i int) {
	m := c.members[i]
	if !m.exited() {
		_ = m.cmd.Process.Signal(syscall.SIGSTOP)
		m.stopped = true
	}
}

// Thaw sends SIGCONT to a frozen member.
func (c *Cluster) Thaw(i int) {
	m := c.members[i]
	if m.stopped && !m.exited() {
		_ = m.cmd.Process.Signal(syscall.SIGCONT)
	}
	m.stopped = false
}

// MoveLeader makes another member lead (3 members).
func (c *Cluster) MoveLeader(ctx context.Context) error {
	leader := c.Leader(ctx)
	if leader < 0 {
		return errors.New("no leader")
	}
	to := (leader + 1) % len(c.members)
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := c.client.Status(cctx, c.Endpoints()[to])
	if err != nil {
		return err
	}
	lc, err := clientv3.New(clientv3.Config{Endpoints: []string{c.Endpoints()[leader]}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return err
	}
	defer lc.Close()
	_, err = lc.MoveLeader(cctx, st.Header.MemberId)
	return err
}

// Heal thaws and restarts every member, waits until the cluster writes,
// and clears a NOSPACE alarm (compact, defrag every member, disarm) once
// the filler's keys are gone; a cluster still electing (etcd's "request
// timed out") is healed again, up to 5 times.
func (c *Cluster) Heal(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = c.heal(ctx); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

func (c *Cluster) heal(ctx context.Context) error {
	for i := range c.members {
		c.Thaw(i)
		if err := c.Restart(i); err != nil {
			return err
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := c.client.Get(cctx, "chaos-heal")
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster did not answer after healing: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	alarms, err := c.client.AlarmList(cctx)
	if err != nil {
		return err
	}
	if len(alarms.Alarms) == 0 {
		return nil
	}
	if _, err := c.client.Delete(cctx, fillPrefix, clientv3.WithPrefix()); err != nil {
		return fmt.Errorf("delete the filler's keys: %w", err)
	}
	resp, err := c.client.Get(cctx, "chaos-heal")
	if err != nil {
		return err
	}
	if _, err := c.client.Compact(cctx, resp.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	for _, ep := range c.Endpoints() {
		if _, err := c.client.Defragment(cctx, ep); err != nil {
			return fmt.Errorf("defrag %s: %w", ep, err)
		}
	}
	for _, a := range alarms.Alarms {
		if _, err := c.client.AlarmDisarm(cctx, &clientv3.AlarmMember{MemberID: a.MemberID, Alarm: a.Alarm}); err != nil {
			return fmt.Errorf("disarm: %w", err)
		}
	}
	return nil
}

// Close stops every member and removes nothing (the runner's folder does).
func (c *Cluster) Close() {
	if c.client != nil {
		_ = c.client.Close()
	}
	for _, m := range c.members {
		if m.cmd != nil && !m.exited() {
			if m.stopped {
				_ = m.cmd.Process.Signal(syscall.SIGCONT)
			}
			_ = m.cmd.Process.Kill()
			<-m.done
		}
		if m.log != nil {
			_ = m.log.Close()
		}
	}
}
