package show

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// VChannelHealthParam is `show vchannel-health`.
type VChannelHealthParam struct {
	framework.ParamBase `use:"show vchannel-health" desc:"each vchannel's channel checkpoint, its lag against wall clock and datacoord's max-lag rule (error 504), its registration on the streaming node; dropped vchannels are skipped" example:"show vchannel-health --max-lag 15m" alias:"vch"`
	MaxLag              string `name:"max-lag" placeholder:"DURATION" desc:"flag a checkpoint lagging wall clock by more (default: the instance's dataCoord.compaction.channelMaxCPLag, else 900s as in Milvus)"`
	Wide
	framework.Output
}

// Validate checks --max-lag.
func (p *VChannelHealthParam) Validate() error {
	_, err := ParseMaxLag(p.MaxLag)
	return err
}

// ParseMaxLag reads a --max-lag value ("" is 0: the instance's rule).
func ParseMaxLag(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, framework.Usagef("--max-lag %q is not a positive duration (15m, 900s)", s)
	}
	return d, nil
}

// Flags of a vchannel-health row.
const (
	FlagDropped       = "DROPPED"       // the dropped-channel marker: skipped
	FlagNoCollection  = "NO_COLLECTION" // no live collection: datacoord's rule skips it too
	FlagOverMaxLag    = "OVER_MAX_LAG"  // datacoord's CheckCheckPointsHealth fails on it
	FlagNotRegistered = "NOT_REGISTERED"
	FlagNoChannelCP   = "NO_CHANNEL_CP" // datacoord seeks from segments or the collection start
)

// VChannelHealthRow is one vchannel.
type VChannelHealthRow struct {
	VChannel   string   `json:"vchannel"`
	PChannel   string   `json:"pchannel"`
	Collection int64    `json:"collection"`
	Key        string   `json:"key"`
	WAL        string   `json:"wal"`
	Timestamp  uint64   `json:"timestamp"`
	Time       string   `json:"time"`
	LagSeconds int64    `json:"lag_seconds"`
	Registered bool     `json:"registered"`
	Flags      []string `json:"flags"`
	// Commands are the repairs of its FAIL flags (OVER_MAX_LAG, NOT_REGISTERED).
	Commands []string `json:"commands,omitempty"`
}

// Has reports a flag.
func (r VChannelHealthRow) Has(flag string) bool { return slices.Contains(r.Flags, flag) }

// VChannelHealthResult is the output of `show vchannel-health`.
type VChannelHealthResult struct {
	VChannels []VChannelHealthRow `json:"vchannels"`
	Now       time.Time           `json:"now"`
	// MaxLag is the rule applied, MaxLagFrom where it comes from (the
	// config key, "--max-lag" or "default").
	MaxLagSeconds float64  `json:"max_lag_seconds"`
	MaxLagFrom    string   `json:"max_lag_from"`
	OverMaxLag    int      `json:"over_max_lag"`
	NotRegistered int      `json:"not_registered"`
	Dropped       int      `json:"dropped"`
	Errors        []string `json:"errors"`
	wide          bool
}

func runVChannelHealth(ctx context.Context, inst *instance.Instance, p *VChannelHealthParam, out framework.IO) (framework.Result, error) {
	st, err := ReadChannelState(ctx, inst, 0)
	if err != nil {
		return nil, err
	}
	st.warnErrors(out.Stderr)
	override, _ := ParseMaxLag(p.MaxLag)
	res := VChannelHealth(st, time.Now(), override, out.Stderr)
	res.wide = p.Wide.Wide
	return res, nil
}

// MaxLag is the max-lag rule of an instance: override when set, else its
// etcd config override of dataCoord.compaction.channelMaxCPLag, else
// Milvus's default; from says which.
func (st *ChannelState) MaxLag(override time.Duration, warn io.Writer) (lag time.Duration, from string) {
	if override > 0 {
		return override, "--max-lag"
	}
	lag, key, bad := models.ChannelCPMaxLag(st.ConfigKeys(), func(k string) string { return st.Config[k] })
	switch {
	case bad != "":
		fmt.Fprintf(warn, "warning: %s = %q is not a number of seconds: the default applies\n", framework.EscapeText(key), framework.EscapeText(bad))
		return lag, "default"
	case key != "":
		return lag, key
	}
	return lag, "default"
}

// VChannelHealth is the vchannel table of a channel state at time now:
// every channel checkpoint's lag against wall clock (datacoord's
// CheckCheckPointsHealth, milvus-io/milvus internal/datacoord/util.go),
// then every live vchannel without one. A dropped vchannel (empty msgID,
// timestamp MaxUint64) is listed but never judged, and never serves as a
// reference: lag is measured against the clock, not against other
// vchannels (birdwatcher #527 took the marker as the newest checkpoint).
func VChannelHealth(st *ChannelState, now time.Time, override time.Duration, warn io.Writer) *VChannelHealthResult {
	maxLag, from := st.MaxLag(override, warn)
	res := &VChannelHealthResult{VChannels: []VChannelHealthRow{}, Now: now.UTC(), MaxLagSeconds: maxLag.Seconds(), MaxLagFrom: from,
		Errors: append([]string{}, st.Errors...)}
	seen := map[string]bool{}
	for _, cc := range st.ChannelCPs {
		seen[cc.VChannel] = true
		coll, live := st.Live[cc.VChannel]
		row := VChannelHealthRow{VChannel: cc.VChannel, PChannel: models.PChannelOf(cc.VChannel), Collection: coll, Key: cc.Key,
			WAL: cc.Position.WAL, Timestamp: cc.Position.Timestamp, Time: tsoTime(cc.Position.Timestamp), Flags: []string{}}
		row.Registered = st.Registered[models.VChannelMetaKey(row.PChannel, row.VChannel)]
		switch {
		case cc.Position.Dropped:
			row.Flags = append(row.Flags, FlagDropped)
			res.Dropped++
		case !live:
			row.Flags = append(row.Flags, FlagNoCollection)
		default:
			row.LagSeconds = int64(now.Sub(models.TSOTime(cc.Position.Timestamp)).Seconds())
			if time.Duration(row.LagSeconds)*time.Second > maxLag {
				row.Flags = append(row.Flags, FlagOverMaxLag)
				if _, frozen := st.FrozenBehind(row.VChannel, cc.Position.Timestamp, maxLag); frozen {
					row.Commands = append(row.Commands, CheckpointRepair(row.VChannel))
				}
				res.OverMaxLag++
			}
		}
		if live && !row.Registered {
			row.Flags = append(row.Flags, FlagNotRegistered)
			row.Commands = append(row.Commands, RegistrationRepair(row.VChannel))
			res.NotRegistered++
		}
		res.VChannels = append(res.VChannels, row)
	}
	var missing []string
	for v := range st.Live {
		if !seen[v] {
			missing = append(missing, v)
		}
	}
	slices.SortFunc(missing, naturalCompare)
	for _, v := range missing {
		row := VChannelHealthRow{VChannel: v, PChannel: models.PChannelOf(v), Collection: st.Live[v], Key: models.ChannelCPKey(v), Flags: []string{FlagNoChannelCP}}
		row.Registered = st.Registered[models.VChannelMetaKey(row.PChannel, v)]
		if !row.Registered {
			row.Flags = append(row.Flags, FlagNotRegistered)
			row.Commands = append(row.Commands, RegistrationRepair(v))
			res.NotRegistered++
		}
		res.VChannels = append(res.VChannels, row)
	}
	return res
}

// JSON implements framework.Result.
func (r *VChannelHealthResult) JSON() any { return r }

func lagText(r VChannelHealthRow) string {
	if r.Has(FlagDropped) || r.Has(FlagNoCollection) || r.Has(FlagNoChannelCP) {
		return ""
	}
	return (time.Duration(r.LagSeconds) * time.Second).String()
}

// Table implements framework.Result.
func (r *VChannelHealthResult) Table(w io.Writer) error {
	t := newTable(w, "VCHANNEL", "COLL", "WAL", "CHECKPOINT TIME", "LAG", "REG", "FLAGS").fit(r.wide, 0, 3, 6).cutEnd(6)
	for _, v := range r.VChannels {
		coll := ""
		if v.Collection != 0 {
			coll = i64(v.Collection)
		}
		t.row(v.VChannel, coll, v.WAL, v.Time, lagText(v), yesNo(v.Registered), strings.Join(v.Flags, ","))
	}
	if err := t.flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d vchannel(s): %d over the max lag %s (%s), %d not registered, %d dropped (skipped); lag is against wall clock %s\n",
		len(r.VChannels), r.OverMaxLag, time.Duration(r.MaxLagSeconds*float64(time.Second)), framework.EscapeText(r.MaxLagFrom), r.NotRegistered, r.Dropped,
		r.Now.Format(time.RFC3339))
	if err != nil {
		return err
	}
	var cmds []string
	for _, v := range r.VChannels {
		cmds = append(cmds, v.Commands...)
	}
	return WriteCommands(w, "", cmds)
}

// Lines implements framework.Result.
func (r *VChannelHealthResult) Lines(w io.Writer) error {
	for _, v := range r.VChannels {
		if err := line(w, "vchannel", "vchannel", v.VChannel, "collection", i64(v.Collection), "key", v.Key, "wal", v.WAL,
			"timestamp", u64(v.Timestamp), "lag_seconds", i64(v.LagSeconds), "registered", boolS(v.Registered), "flags", strings.Join(v.Flags, ",")); err != nil {
			return err
		}
		for _, c := range v.Commands {
			if err := line(w, "command", "vchannel", v.VChannel, "command", c); err != nil {
				return err
			}
		}
	}
	return line(w, "summary", "vchannels", itoa(len(r.VChannels)), "over_max_lag", itoa(r.OverMaxLag), "not_registered", itoa(r.NotRegistered),
		"dropped", itoa(r.Dropped), "max_lag_seconds", fmt.Sprint(r.MaxLagSeconds))
}
