package objstore

import (
	"context"
	"strings"
	"testing"

	"github.com/heron-shell/heron/tests/s3test"
)

func TestOpenMissingBucket(t *testing.T) {
	s3 := s3test.Start(t, "a-bucket")
	_, err := Open(context.Background(), Config{Address: s3.Address, Bucket: "no-such-bucket", RootPath: "files"})
	if err == nil || !strings.Contains(err.Error(), "bucket no-such-bucket does not exist") {
		t.Fatalf("Open with a missing bucket: %v", err)
	}
	if _, err := Open(context.Background(), Config{Address: "http://" + s3.Address, Bucket: "a-bucket"}); err == nil {
		t.Fatal("Open accepted a URL as address")
	}
}

func TestLogClassifiesAndDeletes(t *testing.T) {
	s3 := s3test.Start(t, "a-bucket")
	for _, k := range []string{"files/wp/7/0/0.blk", "files/wp/7/0/m_1.blk", "files/wp/7/0/footer.blk",
		"files/wp/7/1/write.lock", "files/wp/7/notes.txt", "files/wp/70/0/0.blk", "files/wp/8/0/0.blk"} {
		s3.Put("a-bucket", k, []byte("12345"))
	}
	ctx := context.Background()
	st, err := Open(ctx, Config{Address: s3.Address, Bucket: "a-bucket", RootPath: "files"})
	if err != nil {
		t.Fatal(err)
	}
	lo, err := st.Log(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if lo.Count != 4 || lo.Bytes != 20 || len(lo.Foreign) != 1 || lo.Foreign[0].Key != "files/wp/7/notes.txt" {
		t.Fatalf("Log(7) = %+v", lo)
	}
	var keys []string
	for _, o := range lo.Layout {
		keys = append(keys, o.Key)
	}
	var deleted int64
	if err := st.Delete(ctx, keys, func(n int64) { deleted += n }); err != nil || deleted != 4 {
		t.Fatalf("Delete: %v, %d deleted", err, deleted)
	}
	got := strings.Join(s3.Keys("a-bucket"), " ")
	if got != "files/wp/7/notes.txt files/wp/70/0/0.blk files/wp/8/0/0.blk" {
		t.Fatalf("after delete: %s", got)
	}
}
