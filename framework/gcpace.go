package framework

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sync"
)

// heron's garbage collector pace. A command that reads a few thousand keys
// allocates tens of megabytes; a reset at a million segments allocates
// about four gigabytes of short-lived pages, decisions and requests, while
// its live heap stays within a few pages (20-30 MiB). The two want
// opposite paces: each page the heap grows by is a page fault (on a VM, a
// third of a repair's CPU at 1M with GOGC 800: perf), and each collection
// marks the live heap again (seconds of CPU per reset at Go's default
// GOGC 100). So a process starts at GOGC 100 and moves to GOGC 800 once
// it has allocated paceLongAfter bytes: the reset, restore and apply
// passes, not the repairs of one channel. The soft memory limit collects
// sooner before the process nears the benchmark's 256 MiB goal; 800 under
// 192 MiB, as a limit the GOGC target keeps reaching (GOGC 400 under 160
// MiB, GOGC off) makes the collector run at the limit (A/B in
// docs/benchmark.md). GOGC and GOMEMLIMIT in the environment win.
const (
	paceShort       = 100
	paceLong        = 800
	paceLongAfter   = 256 << 20
	paceMemoryLimit = 192 << 20
)

// pace is the process's GC pace: the newest hold (HoldGC) sets the percent
// until released, and the move to paceLong waits for no hold.
var pace struct {
	sync.Mutex
	managed bool // no GOGC in the environment
	long    bool
	holds   []*gcHold
	after   uint64
}

type gcHold struct{ percent int }

// PaceGC sets the process's GC pace (main calls it once).
func PaceGC() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(paceMemoryLimit)
	}
	if os.Getenv("GOGC") == "" {
		startPace(paceLongAfter)
	}
}

// startPace starts at paceShort, and moves to paceLong once the process
// has allocated after bytes.
func startPace(after uint64) {
	pace.Lock()
	defer pace.Unlock()
	pace.managed, pace.after = true, after
	debug.SetGCPercent(paceShort)
	watchGC()
}

// watchGC checks the bytes allocated after the next collection: a cleanup
// of an object nothing refers to runs after each cycle that frees it.
func watchGC() {
	runtime.AddCleanup(&gcCycle{}, func(struct{}) { paceAfterGC() }, struct{}{})
}

// gcCycle holds a pointer: the tiny allocator, whose objects' cleanups
// may never run, takes only pointer-free ones.
type gcCycle struct{ _ *gcCycle }

func paceAfterGC() {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	pace.Lock()
	defer pace.Unlock()
	if !pace.managed {
		return
	}
	if s[0].Value.Uint64() < pace.after || len(pace.holds) > 0 {
		watchGC()
		return
	}
	pace.long = true
	debug.SetGCPercent(paceLong)
}

// HoldGC sets GOGC to percent until release is called (with GOGC in the
// environment, it does nothing): a command that keeps little per key
// (check) holds its RSS near a few pages at the default pace, whatever the
// process did before. Holds nest: a release gives back the percent of the
// newest hold still held (load-backup's, under a check in its shell), else
// the pace; a second call of the same release does nothing.
func HoldGC(percent int) (release func()) {
	pace.Lock()
	defer pace.Unlock()
	if !pace.managed {
		return func() {}
	}
	h := &gcHold{percent}
	pace.holds = append(pace.holds, h)
	debug.SetGCPercent(percent)
	return func() {
		pace.Lock()
		defer pace.Unlock()
		i := slices.Index(pace.holds, h)
		if i < 0 {
			return
		}
		pace.holds = slices.Delete(pace.holds, i, i+1)
		switch {
		case len(pace.holds) > 0:
			debug.SetGCPercent(pace.holds[len(pace.holds)-1].percent)
		case pace.long:
			debug.SetGCPercent(paceLong)
		default:
			debug.SetGCPercent(paceShort)
		}
	}
}
