package gates

import (
	"context"
	"fmt"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/states/instance"
)

// NoAlarmName is the name of the gate "no etcd alarm".
const NoAlarmName = "no etcd alarm"

// NoAlarm is the gate "no etcd alarm": no member has NOSPACE or CORRUPT
// raised. Under NOSPACE etcd refuses every write, so a run would stop at
// its first transaction (or, raised mid-run, leave a split state); under
// CORRUPT a member's data differs from the others'.
func NoAlarm(ctx context.Context, inst *instance.Instance) (framework.Gate, error) {
	alarms, err := inst.Alarms(ctx)
	if err != nil {
		return framework.Gate{}, err
	}
	g := framework.Gate{Name: NoAlarmName, OK: len(alarms) == 0, Count: int64(len(alarms)), Detail: "no member has an alarm raised (NOSPACE, CORRUPT)"}
	if g.OK {
		return g, nil
	}
	nospace, corrupt := false, false
	for _, a := range alarms {
		g.Keys = append(g.Keys, fmt.Sprintf("member %x: %s", a.Member, a.Type))
		nospace = nospace || a.Type == "NOSPACE"
		corrupt = corrupt || a.Type == "CORRUPT"
	}
	var why []string
	if nospace {
		var rev int64
		if r, err := inst.Revision(ctx); err == nil {
			rev = r
		}
		why = append(why, "etcd is out of space (NOSPACE: its database reached --quota-backend-bytes) and refuses every write; "+
			apply.NoSpaceRecovery(inst.Endpoints, rev))
	}
	if corrupt {
		why = append(why, "etcd's CORRUPT alarm is raised (a member's data differs from the others'): repair the cluster first")
	}
	g.Detail = strings.Join(g.Keys, ", ") + ": " + strings.Join(why, "; ")
	g.Fix = []framework.Step{{Order: framework.StepOther, Text: "clear the etcd alarm as the gate says (until `etcdctl alarm list` shows none)"}}
	return g, nil
}

// DefaultQuota is etcd's --quota-backend-bytes when it is not set (2 GiB),
// assumed for members that do not report theirs (etcd before 3.6).
const DefaultQuota = 2 << 30

// SpaceWarnPercent is the share of the quota the database may reach after
// the write without a warning.
const SpaceWarnPercent = 80

// Space is what a write adds to etcd's database beside its size: the
// largest member's (etcd's quota is per member).
type Space struct {
	// WriteBytes estimates the bytes the write adds to the database (every
	// key written keeps its old revision until etcd compacts).
	WriteBytes  int64 `json:"write_bytes"`
	DBSize      int64 `json:"db_size"`
	DBSizeInUse int64 `json:"db_size_in_use"`
	Quota       int64 `json:"quota"`
	// QuotaReported: etcd reported its quota; otherwise Quota is etcd's default.
	QuotaReported bool `json:"quota_reported"`
}

// EtcdSpace reads the database size of the members heron connected to (nil
// when none answers the status request: the plan then shows no size).
func EtcdSpace(ctx context.Context, inst *instance.Instance) *Space {
	members, err := inst.Space(ctx)
	if err != nil || len(members) == 0 {
		return nil
	}
	s := &Space{Quota: DefaultQuota}
	for _, m := range members {
		if m.DBSize > s.DBSize {
			s.DBSize, s.DBSizeInUse = m.DBSize, m.DBSizeInUse
		}
		if m.Quota > 0 && (!s.QuotaReported || m.Quota < s.Quota) {
			s.Quota, s.QuotaReported = m.Quota, true
		}
	}
	return s
}

// WriteCost estimates the bytes a put (or a delete's tombstone) of key and
// value adds to etcd's database: the key, the value, and the revision and
// metadata etcd stores with each.
func WriteCost(key string, value []byte) int64 { return int64(len(key) + len(value) + 64) }

// After is the database size the write leads to: its free pages are used first.
func (s *Space) After() int64 { return max(s.DBSize, s.DBSizeInUse+s.WriteBytes) }

// String is the space line of a plan.
func (s *Space) String() string {
	quota := humanBytes(s.Quota)
	if !s.QuotaReported {
		quota += " (etcd's default; this etcd does not report its --quota-backend-bytes)"
	}
	return fmt.Sprintf("the write adds about %s to etcd's database of %s (%s in use), quota %s",
		humanBytes(s.WriteBytes), humanBytes(s.DBSize), humanBytes(s.DBSizeInUse), quota)
}

// Warning is the plan's warning when the write takes the database past
// SpaceWarnPercent of its quota ("" otherwise).
func (s *Space) Warning() string {
	after := s.After()
	if after*100 <= s.Quota*SpaceWarnPercent {
		return ""
	}
	if after >= s.Quota {
		return fmt.Sprintf("etcd space: the database would grow to about %s, over its quota of %s: etcd would raise NOSPACE mid-write and refuse the rest (a split state); compact and defragment etcd first (etcdctl compact --physical, etcdctl defrag --cluster) or raise --quota-backend-bytes",
			humanBytes(after), humanBytes(s.Quota))
	}
	return fmt.Sprintf("etcd space: the database would grow to about %s, past %d%% of its quota of %s: compacting and defragmenting etcd first leaves room (etcdctl compact --physical, etcdctl defrag --cluster)",
		humanBytes(after), SpaceWarnPercent, humanBytes(s.Quota))
}

// humanBytes writes n in bytes, KiB, MiB or GiB.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
