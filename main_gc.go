package main

import (
	"os"
	"runtime/debug"
)

// A reset at a million segments allocates about four gigabytes of
// short-lived pages, decisions and requests, while its live heap stays
// within a few pages (20-30 MiB). With Go's default GOGC=100 the collector
// runs every few megabytes, seconds of CPU per pass; gcPercent lets the
// heap grow further between collections, and the soft memoryLimit collects
// sooner before the process nears the benchmark's 256 MiB goal. The two
// are chosen together: a limit the GOGC target keeps reaching (GOGC 400
// under 160 MiB, GOGC off) makes the collector run at the limit, and a
// --run at 1M spent 13-17 s of CPU; GOGC 800 under 192 MiB, 11.4-12.3 s
// (peak RSS 207 MiB; A/B in docs/benchmark.md). GOGC and GOMEMLIMIT in the
// environment win.
const (
	gcPercent   = 800
	memoryLimit = 192 << 20
)

func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}
