package main

import (
	"os"
	"runtime/debug"
)

// A reset at a million segments allocates about a gigabyte of short-lived
// pages and decisions, while its live heap stays within a few pages. With
// Go's default GOGC=100 the collector runs every few megabytes, a second
// or more of CPU per pass; gcPercent lets the heap grow further between
// collections, and the soft memoryLimit collects sooner before the
// process nears the benchmark's 256 MiB goal. GOGC and GOMEMLIMIT in the
// environment win.
const (
	gcPercent   = 400
	memoryLimit = 160 << 20
)

func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}
