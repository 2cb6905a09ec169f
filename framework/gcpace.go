package framework

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
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

// pace is the process's GC pace: a hold (HoldGC) keeps its percent until
// released, and the move to paceLong waits for no hold.
var pace struct {
	sync.Mutex
	managed bool // no GOGC in the environment
	long    bool
	held    int
	after   uint64
}

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
	if s[0].Value.Uint64() < pace.after || pace.held > 0 {
		watchGC()
		return
	}
	pace.long = true
	debug.SetGCPercent(paceLong)
}

// HoldGC sets GOGC to percent until release is called (with GOGC in the
// environment, it does nothing): a command that keeps little per key
// (check) holds its RSS near a few pages at the default pace, whatever the
// process did before.
func HoldGC(percent int) (release func()) {
	pace.Lock()
	defer pace.Unlock()
	if !pace.managed {
		return func() {}
	}
	pace.held++
	debug.SetGCPercent(percent)
	return func() {
		pace.Lock()
		defer pace.Unlock()
		pace.held--
		switch {
		case pace.held > 0:
		case pace.long:
			debug.SetGCPercent(paceLong)
		default:
			debug.SetGCPercent(paceShort)
		}
	}
}
