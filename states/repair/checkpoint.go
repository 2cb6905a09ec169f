package repair

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/targetcheck"
)

// CheckpointParams are the flags of `repair checkpoint` (birdwatcher's, with
// --set_to as an alias; the WAL is the instance's, so there is no --mq_type).
type CheckpointParams struct {
	framework.ParamBase `use:"repair checkpoint" desc:"move a frozen vchannel's channel checkpoint (datacoord-meta/channel-cp/V) to a live position of its pchannel (a plan unless --run)" example:"repair checkpoint --vchannel by-dev-rootcoord-dml_0_100v0 --set-to pchannel-cp --run"`
	VChannel            string `name:"vchannel" required:"true" placeholder:"V" desc:"the vchannel whose checkpoint moves (show vchannel-health lists them)"`
	Collection          int64  `name:"collection" placeholder:"ID" desc:"the collection V belongs to (checked; default: the live collection that has V)"`
	SetTo               string `name:"set-to" alias:"set_to" default:"latest-cp" enum:"latest-cp,pchannel-cp,latest-msgid" desc:"latest-cp: the latest position of the pchannel's Flushed, Growing and Flushing segments; pchannel-cp: the pchannel's consume checkpoint; latest-msgid: the last message of the pchannel's Kafka topic (--kafka-brokers)"`
	Force               bool   `name:"force" desc:"move the checkpoint backwards, or past unflushed segments of V (their rows are skipped)"`
	targetcheck.KafkaFlags
	framework.WriteFlags
	framework.Output
}

// Validate checks the flags that the tags cannot.
func (p *CheckpointParams) Validate() error {
	if !models.IsVChannelName(p.VChannel) {
		return framework.Usagef("repair checkpoint: --vchannel %q: want a vchannel name, {pchannel}_{collection}v{shard}", p.VChannel)
	}
	if p.Collection < 0 {
		return framework.Usagef("repair checkpoint: --collection %d: want a collection id", p.Collection)
	}
	if p.Kafka() && p.SetTo != "latest-msgid" {
		return framework.Usagef("repair checkpoint: --kafka-brokers goes with --set-to latest-msgid")
	}
	return p.KafkaFlags.Validate("repair checkpoint")
}

// CheckpointBuild is `repair checkpoint`.
var CheckpointBuild = Build(Repair[CheckpointParams]{
	Command: "repair checkpoint", Cache: models.ChannelCheckpointCache, Decide: decideCheckpoint,
	Line: func(p *CheckpointParams) string {
		line := "repair checkpoint --vchannel " + framework.QuoteWord(p.VChannel)
		if p.Collection != 0 {
			line += fmt.Sprintf(" --collection %d", p.Collection)
		}
		line += " --set-to " + p.SetTo
		if p.Kafka() {
			line += " --kafka-brokers " + framework.QuoteWord(p.KafkaBrokers)
		}
		if p.Force {
			line += " --force"
		}
		return line
	},
})

// The gates of a move (--force overrides both).
const (
	backwardsGate = "the checkpoint does not move backwards"
	unflushedGate = "no unflushed segment of the vchannel starts before the new position"
)

// target is where the checkpoint moves, and where that came from.
type target struct {
	id     msgid.ID
	ts     uint64
	source string
}

func decideCheckpoint(ctx context.Context, inst *instance.Instance, p *CheckpointParams, rev int64) (*Decision, error) {
	v, pc := p.VChannel, models.PChannelOf(p.VChannel)
	coll, err := collectionOf(ctx, inst, p, rev)
	if err != nil {
		return nil, err
	}
	cpKey := inst.Layout.Meta(models.ChannelCPKey(v))
	kv, has, err := inst.Get(ctx, cpKey, rev)
	if err != nil {
		return nil, err
	}
	var cur *msgpb.MsgPosition
	if has {
		if cur, err = models.DecodePosition(kv.Value); err != nil {
			return nil, fmt.Errorf("repair checkpoint: %s: %w", cpKey, err)
		}
		if models.IsDroppedChannelCP(cur) {
			return nil, framework.Usagef("repair checkpoint: --vchannel %s is dropped: %s holds datacoord's dropped-channel marker", v, cpKey)
		}
	}
	cpcKey := inst.Layout.Meta(models.ConsumeCheckpointKey(pc))
	ckv, ok, err := inst.Get(ctx, cpcKey, rev)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, framework.Usagef("repair checkpoint: pchannel %s has no consume checkpoint %s: heron cannot tell the WAL the position is in", pc, cpcKey)
	}
	wcp, err := models.DecodeWALCheckpoint(ckv.Value)
	if err != nil {
		return nil, fmt.Errorf("repair checkpoint: %s: %w", cpcKey, err)
	}
	codec, err := msgid.For(wcp.WAL)
	if !wcp.HasMessageID || err != nil {
		return nil, framework.Usagef("repair checkpoint: the consume checkpoint %s names no WAL heron reads (%s)", cpcKey, msgid.Name(wcp.WAL))
	}
	segs, err := scanSegments(ctx, inst, rev, v, coll.ID, wcp.WAL)
	if err != nil {
		return nil, err
	}
	var to target
	switch p.SetTo {
	case "latest-cp":
		if segs.latest.Best == nil {
			return nil, framework.Usagef("repair checkpoint: --set-to latest-cp: no Flushed, Growing or Flushing segment of pchannel %s has a %s position (try --set-to pchannel-cp)", pc, msgid.Name(wcp.WAL))
		}
		to = target{id: segs.latest.Best.ID, ts: segs.latest.Best.Timestamp, source: segs.latest.Best.Source}
	case "pchannel-cp":
		id, err := codec.DecodeText(wcp.MessageID)
		if err != nil {
			return nil, fmt.Errorf("repair checkpoint: %s: message_id %q: %w", cpcKey, wcp.MessageID, err)
		}
		to = target{id: id, ts: wcp.TimeTick, source: "the consume checkpoint of " + pc}
	case "latest-msgid":
		if to, err = lastMessage(ctx, p, pc, wcp.WAL); err != nil {
			return nil, err
		}
	}

	if to.ts == models.DroppedChannelTimestamp {
		return nil, framework.Usagef("repair checkpoint: --set-to %s: %s is at timestamp MaxUint64, datacoord's dropped-channel marker: written, it would drop %s (try another --set-to)",
			p.SetTo, to.source, v)
	}
	d := &Decision{Subject: fmt.Sprintf("channel checkpoint of %s (collection %d %s) to %s: %s", v, coll.ID, coll.Name, p.SetTo, to.source),
		Reminders: []string{"start Milvus: datacoord loads the channel checkpoint as written here and the flusher of " + v + " resumes from it"}}
	d.Warnings = append(d.Warnings, segs.skipped...)
	if cur != nil && cur.GetTimestamp() == to.ts && string(cur.GetMsgID()) == string(to.id.Bytes()) && cur.GetWALName() == to.id.WAL() {
		return d, nil
	}
	nv, err := models.MovePosition(kv.Value, v, to.id, to.ts) // an absent key's Value is nil: a new position
	if err != nil {
		return nil, fmt.Errorf("repair checkpoint: %s: %w", cpKey, err)
	}
	after := models.DescribePosition(to.id.WAL(), to.id.Bytes(), to.ts, false)
	if has {
		d.Changes = []Change{Put(kv, nv, models.DescribeMsgPosition(cur, wcp.WAL), after)}
	} else {
		d.Changes = []Change{Create(cpKey, nv, after)}
	}

	back := framework.Gate{Name: backwardsGate, OK: true, Detail: "the new position is not older than the channel checkpoint"}
	if cur != nil && to.ts < cur.GetTimestamp() {
		back.OK, back.Count = false, 1
		back.Detail = fmt.Sprintf("the new position (%s) is older than the channel checkpoint (%s): Milvus would replay what it already consumed; --force to move it anyway",
			models.TimestampText(to.ts), models.TimestampText(cur.GetTimestamp()))
	}
	skip := framework.Gate{Name: unflushedGate, OK: true, Detail: "no Growing, Sealed or Flushing segment of " + v + " starts before the new position"}
	var at []*models.SegmentInfo
	for _, s := range segs.unflushed {
		if s.StartPosition.GetTimestamp() < to.ts {
			at = append(at, s)
		}
	}
	switch {
	case len(at) > 0:
		var rows int64
		ids := make([]string, len(at))
		for i, s := range at {
			rows += s.NumRows
			ids[i] = fmt.Sprintf("%d (%s, %d rows)", s.ID, s.State, s.NumRows)
		}
		skip.OK, skip.Count = false, int64(len(at))
		verb := framework.PluralWord(len(at), "starts", "start")
		skip.Detail = fmt.Sprintf("%s of %s (%d rows) %s before the new position: the flusher would skip their rows (%s); flush them first (Milvus running), or --force",
			framework.Plural(int64(len(at)), "unflushed segment", ""), v, rows, verb, strings.Join(ids, ", "))
	case len(segs.unreadable) > 0:
		skip.OK, skip.Count, skip.Keys = false, int64(len(segs.unreadable)), segs.unreadable[:min(len(segs.unreadable), 5)]
		n := len(segs.unreadable)
		skip.Detail = fmt.Sprintf("%s that may be %s's (under a key naming collection %d or no collection, or with a channel field naming %s) %s: "+
			"heron cannot tell whether any is an unflushed segment of %s that starts before the new position; --force to move it anyway",
			framework.Plural(n, "segment", ""), v, coll.ID, v, framework.PluralWord(n, "does not decode", "do not decode"), v)
	}
	d.Gate(back, p.Force)
	d.Gate(skip, p.Force)
	return d, nil
}

// collectionOf is the live collection that has p.VChannel (both key
// layouts, readCollections), or the one --collection names.
func collectionOf(ctx context.Context, inst *instance.Instance, p *CheckpointParams, rev int64) (*models.CollectionInfo, error) {
	keep := listing(p.VChannel)
	if p.Collection != 0 {
		keep = withID(p.Collection)
	}
	cs, err := readCollections(ctx, inst, rev, keep)
	if err != nil {
		return nil, err
	}
	if p.Collection != 0 {
		c, ok := cs.byID[p.Collection]
		switch {
		case !ok:
			return nil, framework.Usagef("repair checkpoint: --collection %d: no such collection, or it is dropped (show collections lists them)", p.Collection)
		case !slices.Contains(c.info.VChannels, p.VChannel):
			return nil, framework.Usagef("repair checkpoint: --vchannel %s is not a vchannel of collection %d (its vchannels: %s)", framework.EchoValue(p.VChannel), p.Collection, strings.Join(c.info.VChannels, ", "))
		case !c.info.Live():
			return nil, framework.Usagef("repair checkpoint: collection %d is %s, not a live collection", p.Collection, c.info.State)
		}
		return c.info, nil
	}
	if c, ok := cs.liveWith(p.VChannel); ok {
		return c.info, nil
	}
	return nil, framework.Usagef("repair checkpoint: --vchannel %s is not a vchannel of a live collection (show collections lists them)", p.VChannel)
}

// segmentScan is what a move needs of the segments: the latest position of
// the pchannel (latest-cp), the unflushed segments of the vchannel, the
// keys of the collection's segments that do not decode (any may be one),
// and what latest-cp left out.
type segmentScan struct {
	latest     *models.LatestPosition
	unflushed  []*models.SegmentInfo
	unreadable []string
	skipped    []string
}

// scanSegments reads every segment at rev, one page at a time.
func scanSegments(ctx context.Context, inst *instance.Instance, rev int64, vchannel string, collection int64, wal commonpb.WALName) (*segmentScan, error) {
	latest, err := models.NewLatestPosition(models.PChannelOf(vchannel), wal)
	if err != nil {
		return nil, err
	}
	s := &segmentScan{latest: latest}
	bad := 0
	pc := models.PChannelOf(vchannel)
	_, err = inst.ScanMeta(ctx, models.SegmentPrefix, rev, func(page []instance.KV) error {
		for _, kv := range page {
			// A segment of another pchannel is neither V's nor a position
			// of its pchannel: its channel field (read without decoding)
			// tells, and only the pchannel's segments are decoded (at 1M
			// segments over 64 pchannels, a sixty-fourth). One whose
			// channel cannot be read is decoded, and counted as not
			// decoding; one of another pchannel is not this repair's to
			// read, whole or broken.
			ch, chOK := models.SegmentChannel(kv.Value)
			if chOK && !models.OnPChannel(ch, pc) {
				continue
			}
			seg, err := models.DecodeSegmentInfo(kv.Value)
			if err != nil {
				bad++
				// Every key under the prefix is a segment's (Classify): one
				// of V's collection, one whose key names none, or one whose
				// channel field names V, may be V's.
				rel, _ := inst.Layout.Rel(kv.Key)
				if k := models.Classify(rel); k.Collection == collection || k.Odd || (chOK && string(ch) == vchannel) {
					s.unreadable = append(s.unreadable, kv.Key)
				}
				continue
			}
			if seg.InsertChannel == vchannel && seg.Unflushed() {
				s.unflushed = append(s.unflushed, seg)
			}
			latest.Add(seg)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if bad > 0 {
		s.skipped = append(s.skipped, fmt.Sprintf("%s under %s %s: heron could not check %s", framework.Plural(int64(bad), "segment", ""), models.SegmentPrefix,
			framework.PluralWord(bad, "does not decode", "do not decode"), framework.PluralWord(bad, "it", "them")))
	}
	if left := latest.LeftOut(); left != "" {
		s.skipped = append(s.skipped, left)
	}
	return s, nil
}

// lastMessage is the last message of the pchannel's topic. Only Kafka's
// records carry a message's time tick that heron reads (its headers);
// another WAL is refused rather than given a guessed timestamp.
func lastMessage(ctx context.Context, p *CheckpointParams, pc string, wal commonpb.WALName) (target, error) {
	why := map[commonpb.WALName]string{
		commonpb.WALName_Pulsar:     "heron reads Pulsar through its admin statistics, which give no message's time tick",
		commonpb.WALName_WoodPecker: "woodpecker's log metadata (LogMeta) records segments, not messages or their time ticks",
		commonpb.WALName_RocksMQ:    "rocksmq lives on the Milvus node's disk, which heron does not read",
	}
	if wal != commonpb.WALName_Kafka {
		return target{}, framework.Usagef("repair checkpoint: --set-to latest-msgid reads Kafka only and the instance's WAL is %s: %s; use --set-to pchannel-cp or latest-cp",
			msgid.Name(wal), why[wal])
	}
	if !p.Kafka() {
		return target{}, framework.Usagef("repair checkpoint: --set-to latest-msgid on a Kafka WAL needs --kafka-brokers")
	}
	c, err := p.KafkaConfig()
	if err != nil {
		return target{}, framework.Usagef("repair checkpoint: %v", err)
	}
	rec, ok, err := targetcheck.KafkaLastRecord(ctx, c, pc)
	if err != nil {
		return target{}, err
	}
	if !ok {
		return target{}, framework.Usagef("repair checkpoint: --set-to latest-msgid: kafka topic %s holds no message (use --set-to pchannel-cp or latest-cp)", models.KafkaTopic(pc))
	}
	tt, err := models.MessageTimeTick(rec.Headers)
	if err != nil {
		return target{}, fmt.Errorf("repair checkpoint: kafka topic %s offset %d: %w: heron cannot tell its timestamp (use --set-to pchannel-cp or latest-cp)", rec.Topic, rec.Offset, err)
	}
	return target{id: msgid.OffsetID{Of: commonpb.WALName_Kafka, Offset: rec.Offset}, ts: tt,
		source: fmt.Sprintf("the last message of kafka topic %s (offset %d)", rec.Topic, rec.Offset)}, nil
}
