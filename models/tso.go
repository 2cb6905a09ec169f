package models

import (
	"math"
	"time"
)

// tsoLogicalBits is the width of a TSO's logical counter: Milvus's hybrid
// timestamp is physical unix milliseconds << 18 | logical
// (pkg/util/tsoutil ComposeTS, logicalBits = 18).
const tsoLogicalBits = 18

// maxTSOMillis bounds the physical part of a TSO that is a time (year
// 9999); anything above is not a timestamp Milvus wrote.
var maxTSOMillis = uint64(time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).UnixMilli())

// SplitTSO splits a Milvus hybrid timestamp into its physical time (UTC)
// and logical counter; ok is false for 0, MaxUint64 (the dropped-channel
// marker) and a physical part past year 9999.
func SplitTSO(ts uint64) (physical time.Time, logical uint64, ok bool) {
	ms := ts >> tsoLogicalBits
	if ts == 0 || ts == math.MaxUint64 || ms > maxTSOMillis {
		return time.Time{}, 0, false
	}
	return time.UnixMilli(int64(ms)).UTC(), ts & (1<<tsoLogicalBits - 1), true
}
