package rehearse

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The embedded etcd keeps every key in an in-memory index (its treeIndex:
// a B-tree item per key with the key and its revisions) for the whole
// session, and bbolt's pages are mapped from its file (page cache, not
// counted here). A load's peak anonymous memory is a fixed part (the
// process, etcd's server, the load's batches) and a part per key, measured
// with bench/run.sh's load-backup phase (RssAnon sampled every 0.05 s,
// GOGC 50) on instances of bench/gen (keys of 60-110 bytes, as Milvus's):
//
//	121,133 keys (20k segments)    67.5 MiB
//	201,133 keys (100k segments)   91.2-94.7 MiB
//	401,133 keys (300k segments)  157.1 MiB
//
// a line of 29 MiB and 335 bytes a key (a million segments, 1.1M keys:
// about 380 MiB, not measured on this machine).
const (
	loadBaseBytes   = 29 << 20
	loadBytesPerKey = 335
)

// estimate is the peak anonymous memory load-backup takes to load keys keys.
func estimate(keys int64) int64 {
	return loadBaseBytes + keys*loadBytesPerKey
}

// budget is the memory a load may take: the smaller of the cgroup's limit
// and the memory the kernel says is available; bytes 0: neither is known.
type budget struct {
	bytes int64
	// from names where bytes was read.
	from string
}

// unlimited: cgroup v1 writes "no limit" as the largest page-aligned
// int64 (9223372036854771712); any limit past an exbibyte is none.
const unlimited = 1 << 60

// readBudget reads the budget of a process under root ("/": this
// machine; tests pass a folder of fake files): cgroup v2's memory.max,
// else v1's memory.limit_in_bytes, and /proc/meminfo's MemAvailable.
func readBudget(root string) budget {
	var b budget
	consider := func(n int64, from string) {
		if n > 0 && n < unlimited && (b.bytes == 0 || n < b.bytes) {
			b = budget{bytes: n, from: from}
		}
	}
	for _, f := range []string{"sys/fs/cgroup/memory.max", "sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if n, ok := readNumber(filepath.Join(root, f)); ok {
			consider(n, "the cgroup's limit (/"+f+")")
			break
		}
	}
	if n, ok := memAvailable(filepath.Join(root, "proc/meminfo")); ok {
		consider(n, "the available memory (MemAvailable in /proc/meminfo)")
	}
	return b
}

// readNumber reads a cgroup file of one number; "max" (v2's no limit) is
// a number past unlimited.
func readNumber(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return unlimited, true
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// memAvailable reads MemAvailable (in kB) from a /proc/meminfo.
func memAvailable(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemAvailable:" {
			n, err := strconv.ParseInt(f[1], 10, 64)
			return n << 10, err == nil
		}
	}
	return 0, false
}

// warnShare: a load expected to take more than this share of the budget
// is warned about (the shell's commands and the page cache need the rest).
const warnShare = 0.7

// verdict is what a load of an estimated size in a budget gets.
type verdict int

const (
	fits verdict = iota
	tight
	tooBig
)

func decide(est int64, b budget) verdict {
	switch {
	case b.bytes == 0:
		return fits
	case est > b.bytes:
		return tooBig
	case float64(est) > warnShare*float64(b.bytes):
		return tight
	}
	return fits
}

// memoryNote says what a load of keys keys is expected to take against b.
func memoryNote(keys, est int64, b budget) string {
	s := fmt.Sprintf("%d keys: about %d MiB of memory (the embedded etcd's index, about %d bytes a key, and %d MiB of process)",
		keys, mib(est), loadBytesPerKey, mib(loadBaseBytes))
	if b.bytes > 0 {
		s += fmt.Sprintf(", %d%% of %d MiB, %s", est*100/b.bytes, mib(b.bytes), b.from)
	}
	return s
}

func mib(n int64) int64 { return (n + 1<<19) >> 20 }
