package framework

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// gcPercent reads GOGC without setting it (a set and a set back could undo
// the pace's own move between the two).
func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// allocate allocates n bytes that nothing keeps, and collects.
func allocate(n int) {
	var sink []byte
	for range n >> 20 {
		sink = make([]byte, 1<<20)
		sink[0] = 1
	}
	_ = sink
	runtime.GC()
}

// waitPercent waits for the pace's cleanup (run after a collection, on its
// own goroutine) to set want.
func waitPercent(t *testing.T, want int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if gcPercent() == want {
			return
		}
		runtime.GC()
	}
	t.Fatalf("GOGC %d, want %d", gcPercent(), want)
}

// A process starts at the short pace and moves to the long one once it has
// allocated enough; a hold (check's) keeps its percent meanwhile, and its
// release gives back the hold under it (load-backup's) or the pace the
// process is at.
func TestGCPace(t *testing.T) {
	saved := debug.SetGCPercent(100)
	t.Cleanup(func() {
		pace.Lock()
		pace.managed, pace.long, pace.holds, pace.after = false, false, nil, 0
		pace.Unlock()
		debug.SetGCPercent(saved)
	})
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	startPace(ms.TotalAlloc + 64<<20)
	if got := gcPercent(); got != paceShort {
		t.Fatalf("GOGC %d at the start, want %d", got, paceShort)
	}
	allocate(8 << 20)
	if got := gcPercent(); got != paceShort {
		t.Fatalf("GOGC %d after a few pages, want %d", got, paceShort)
	}

	release := HoldGC(50)
	if got := gcPercent(); got != 50 {
		t.Fatalf("GOGC %d under a hold of 50", got)
	}
	allocate(128 << 20)
	time.Sleep(100 * time.Millisecond)
	if got := gcPercent(); got != 50 {
		t.Fatalf("GOGC %d: the pace moved under a hold", got)
	}
	release()
	if got := gcPercent(); got != paceShort {
		t.Fatalf("GOGC %d after the hold, want the short pace %d", got, paceShort)
	}
	waitPercent(t, paceLong)

	outer := HoldGC(50)
	release = HoldGC(100)
	if got := gcPercent(); got != 100 {
		t.Fatalf("GOGC %d under a hold of 100", got)
	}
	release()
	release()
	if got := gcPercent(); got != 50 {
		t.Fatalf("GOGC %d after the inner hold (released twice), want the outer hold's 50", got)
	}
	outer()
	if got := gcPercent(); got != paceLong {
		t.Fatalf("GOGC %d after the holds, want the long pace %d", got, paceLong)
	}
}
