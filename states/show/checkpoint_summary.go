package show

import (
	"fmt"
	"strings"
)

// summaryLine is the last line of the checkpoint table: the pchannels by
// the WAL their consume checkpoint names, the split ones, the vchannels.
func (r *CheckpointResult) summaryLine() string {
	byWAL := map[string]int{}
	missing := 0
	for _, p := range r.PChannels {
		if p.HasCheckpoint && p.WAL != "" {
			byWAL[p.WAL]++
		} else {
			missing++
		}
	}
	parts := []string{fmt.Sprintf("%d pchannel(s)", len(r.PChannels))}
	if len(byWAL) > 0 {
		var on []string
		for _, kv := range strings.Split(joinCounts(byWAL, "=", ","), ",") {
			wal, n, _ := strings.Cut(kv, "=")
			on = append(on, n+" on "+wal)
		}
		parts[0] += ": " + strings.Join(on, ", ")
	}
	if missing > 0 {
		parts = append(parts, fmt.Sprintf("%d without a consume checkpoint", missing))
	}
	if n := len(r.SplitPChannels); n > 0 {
		parts = append(parts, fmt.Sprintf("%d in a SPLIT STATE", n))
	} else {
		parts = append(parts, "none split")
	}
	if r.pchannelsOnly {
		parts = append(parts, "vchannels not read (--pchannels)")
	} else {
		parts = append(parts, fmt.Sprintf("%d vchannel(s)", len(r.VChannels)))
	}
	return strings.Join(parts, "; ")
}
