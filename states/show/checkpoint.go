package show

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/states/backups"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/targetcheck"
	"github.com/heron-shell/heron/states/woodpecker"
)

// CheckpointParam is `show checkpoint`.
type CheckpointParam struct {
	framework.ParamBase `use:"show checkpoint" desc:"consume checkpoint of every pchannel and the position datacoord would seek each vchannel to" example:"show checkpoint --pchannel by-dev-rootcoord-dml_0 --wide" alias:"checkpoints,cp"`
	Collection          int64  `name:"collection" default:"0" placeholder:"ID" desc:"only the vchannels (and their pchannels) of this collection ID (all when omitted)"`
	PChannel            string `name:"pchannel" default:"" placeholder:"PCHANNEL" desc:"only this pchannel and its vchannels (all when omitted)"`
	WPMetaPrefix        string `name:"wp-meta-prefix" default:"" placeholder:"PREFIX" desc:"woodpecker.meta.prefix as milvus.yaml sets it (default: an etcd config override, else woodpecker)"`
	PChannelsOnly       bool   `name:"pchannels" desc:"only the pchannels (consume checkpoints), without the vchannel table"`
	BackupDir           string `name:"backup-dir" default:"" placeholder:"DIR" complete:"-" desc:"in a split state, also look for the interrupted run's backups in DIR (the working folder is always searched)"`
	Wide
	targetcheck.Flags
	framework.Output
}

// PChannelRow is one pchannel and its consume checkpoint. As in every show
// listing, a message id is given as the bytes a MsgPosition holds
// (message_id_hex, message_id_base64) and decoded (message_id_human);
// message_id is the text form the consume checkpoint stores
// (commonpb.MessageID.id). The bytes are empty when the text does not decode.
type PChannelRow struct {
	Name string `json:"name"`
	// InMeta: listed under streamingcoord-meta/pchannel/.
	InMeta              bool   `json:"in_streamingcoord_meta"`
	HasCheckpoint       bool   `json:"has_checkpoint"`
	CheckpointKey       string `json:"checkpoint_key,omitempty"`
	WAL                 string `json:"wal"`
	MessageID           string `json:"message_id"`
	MessageIDHex        string `json:"message_id_hex"`
	MessageIDBase64     string `json:"message_id_base64"`
	MessageIDHuman      string `json:"message_id_human"`
	TimeTick            uint64 `json:"time_tick"`
	Time                string `json:"time"`
	ReplicateCheckpoint bool   `json:"replicate_checkpoint"`
	ReplicateCluster    string `json:"replicate_cluster,omitempty"`
	// AlterWAL is the checkpoint's alter_wal_state (Milvus's online switch), null when unset.
	AlterWAL *AlterWALRow `json:"alter_wal"`
	// UnknownFields are the numbers of checkpoint fields heron does not know
	// (later Milvus versions), kept byte for byte by every rewrite.
	UnknownFields []int32 `json:"unknown_fields,omitempty"`
	// TargetTopic is this pchannel's topic on the target checked with
	// --kafka-brokers or --pulsar-admin; absent without them.
	TargetTopic *targetcheck.Topic `json:"target_topic,omitempty"`
	// Split is the models split-state rule (models.WALCensus) over Positions.
	Split bool `json:"split"`
	// Positions counts every position of this pchannel (the consume checkpoint
	// included) by the WAL it is in: its WAL_name, else the consume
	// checkpoint's WAL, or "undecodable as W" when its id does not decode in W.
	Positions map[string]int64 `json:"positions"`
	// WALCounts counts the positions of this pchannel that name their WAL
	// explicitly (the consume checkpoint included), by WAL.
	WALCounts map[string]int `json:"wal_counts"`
	// Untagged counts positions with WAL_name Unknown (channel-cps, segment
	// positions) and collection start positions, which carry no WAL_name.
	Untagged int    `json:"untagged"`
	Error    string `json:"error,omitempty"`
}

// AlterWALRow is the alter_wal_state of a consume checkpoint.
type AlterWALRow struct {
	Target string `json:"target"`
	Stage  string `json:"stage"`
	// Interrupted: the stage is not NONE; Milvus resumes the switch toward Target on start.
	Interrupted bool   `json:"interrupted"`
	TimeTick    uint64 `json:"time_tick"`
	Description string `json:"description"`
}

// WoodpeckerLogRow is one log in woodpecker's own metadata named after a
// pchannel of this instance (Milvus names logs after pchannels): a log with
// segments holds data; one with a truncation point and no segments is not
// fresh either.
type WoodpeckerLogRow struct {
	Log string `json:"log"`
	// Prefix is the absolute logs prefix it was found under ({P}/logs/, P
	// one of woodpecker.prefixes), MetaPrefix the P.
	Prefix     string `json:"prefix"`
	MetaPrefix string `json:"meta_prefix"`
	// Legacy: under the top-level woodpecker/ that every instance shares.
	Legacy bool `json:"legacy"`
	// Effective: under the prefix woodpecker uses (woodpecker.effective).
	Effective bool  `json:"effective"`
	LogID     int64 `json:"log_id"`
	Segments  int64 `json:"segments"`
	// FirstSegment and LastSegment are the segments' range, -1 when none.
	FirstSegment int64 `json:"first_segment"`
	LastSegment  int64 `json:"last_segment"`
	// TruncatedSegment and TruncatedEntry are the truncation point; -1: none.
	TruncatedSegment int64 `json:"truncated_segment"`
	TruncatedEntry   int64 `json:"truncated_entry"`
	// Keys counts every key of the log (LogMeta, lock, segments, reader,
	// clean-up and parked copies).
	Keys int64 `json:"keys"`
	// PChannel: the log is named after a pchannel of this instance (always
	// true: other logs are counted in woodpecker.prefixes, not listed).
	PChannel bool `json:"pchannel"`
}

// WoodpeckerMeta is where woodpecker's metadata is: the prefix a woodpecker
// client would use and every prefix looked at (states/woodpecker).
type WoodpeckerMeta struct {
	Effective woodpecker.Effective `json:"effective"`
	Prefixes  []woodpecker.Prefix  `json:"prefixes"`
}

// VChannelRow is one vchannel and the position datacoord would seek it to;
// its message id is given as in PChannelRow (hex, base64 and decoded).
type VChannelRow struct {
	Name            string `json:"name"`
	PChannel        string `json:"pchannel"`
	Collection      int64  `json:"collection"`
	CollectionName  string `json:"collection_name,omitempty"`
	CollectionState string `json:"collection_state,omitempty"`
	Level           string `json:"level"`
	SourceKey       string `json:"source_key"`
	WAL             string `json:"wal"`
	WALGuessed      bool   `json:"wal_guessed"`
	MessageIDHex    string `json:"message_id_hex"`
	MessageIDBase64 string `json:"message_id_base64"`
	MessageIDHuman  string `json:"message_id_human"`
	Timestamp       uint64 `json:"timestamp"`
	Time            string `json:"time"`
	Dropped         bool   `json:"dropped"`
	Error           string `json:"error,omitempty"`
}

// CheckpointResult is the output of `show checkpoint`.
type CheckpointResult struct {
	Revision int64 `json:"revision"`
	// Generation is the Milvus generation the keys tell (models.Generation).
	Generation     string             `json:"generation"`
	Target         *TargetRow         `json:"target,omitempty"`
	PChannels      []PChannelRow      `json:"pchannels"`
	VChannels      []VChannelRow      `json:"vchannels"`
	SplitPChannels []string           `json:"split_pchannels"`
	WoodpeckerLogs []WoodpeckerLogRow `json:"woodpecker_logs"`
	Woodpecker     WoodpeckerMeta     `json:"woodpecker"`

	// In a split state: the WAL the interrupted reset moved positions to,
	// the command that completes it, the restores that roll it back (newest
	// first) and the folders searched for its backups.
	SplitTarget      string   `json:"split_target,omitempty"`
	CompleteCommand  string   `json:"complete_command,omitempty"`
	RollbackCommands []string `json:"rollback_commands,omitempty"`
	BackupFolders    []string `json:"backup_folders,omitempty"`

	// wide: the table shows every column in full (--wide).
	wide           bool
	generationNote string
	// pchannelsOnly (--pchannels): no vchannel table.
	pchannelsOnly bool
	// pchannelNames: the table names pchannels by their distinct part.
	pchannelNames []string
}

func runCheckpoint(ctx context.Context, inst *instance.Instance, p *CheckpointParam, out framework.IO) (framework.Result, error) {
	if err := p.Flags.Validate("show checkpoint", ""); err != nil {
		return nil, err
	}
	res, err := Checkpoints(ctx, inst, p.Collection, p.PChannel, p.WPMetaPrefix, out.Stderr)
	if err != nil {
		return nil, err
	}
	if err := addTargetTopics(ctx, inst, &p.Flags, res); err != nil {
		return nil, err
	}
	res.wide = p.Wide.Wide
	if len(res.SplitPChannels) > 0 {
		res.nextSteps(inst.Layout.RootPath, backups.Folders([]string{p.BackupDir}))
	}
	if p.PChannelsOnly {
		res.pchannelsOnly, res.VChannels = true, []VChannelRow{}
	}
	return res, nil
}

type pchannelState struct {
	inMeta   bool
	cp       *models.WALCheckpoint
	cpKey    string
	cpErr    string
	counts   map[commonpb.WALName]int
	untagged int
}

type collMeta struct {
	name, state string
}

// checkpointScan holds what `show checkpoint` gathers while keys stream by:
// one entry per pchannel, collection and vchannel, never per segment.
type checkpointScan struct {
	collection int64
	pchannel   string
	warn       io.Writer

	pchannels   map[string]*pchannelState
	collections map[int64]collMeta
	wanted      map[string]bool // vchannels of --collection
	resolver    *models.SeekResolver
	census      *models.WALCensus
	dropped     map[string]string // vchannel -> channel-cp key of its dropped marker
	cpErrors    map[string]string // vchannel -> error of its undecodable channel-cp
	metaOnly    map[string]string // vchannel -> its streamingnode vchannel meta key
}

func (s *checkpointScan) pch(name string) *pchannelState {
	ps, ok := s.pchannels[name]
	if !ok {
		ps = &pchannelState{counts: map[commonpb.WALName]int{}}
		s.pchannels[name] = ps
	}
	return ps
}

func (s *checkpointScan) warnf(format string, args ...any) {
	fmt.Fprintf(s.warn, "warning: %s\n", framework.EscapeText(fmt.Sprintf(format, args...)))
}

// inScope reports whether a vchannel of a collection passes the filters.
// collection is 0 when the caller does not know it.
func (s *checkpointScan) inScope(vchannel string, collection int64) bool {
	if s.pchannel != "" && models.PChannelOf(vchannel) != s.pchannel {
		return false
	}
	if s.collection == 0 {
		return true
	}
	if collection != 0 {
		return collection == s.collection
	}
	// Channel-cps carry no collection: take it from the collection infos, or,
	// for orphans, from Milvus's vchannel naming ({pchannel}_{collection}v{n}).
	return s.wanted[vchannel] || strings.HasPrefix(vchannel[len(models.PChannelOf(vchannel)):], fmt.Sprintf("_%dv", s.collection))
}

// count notes a position of a pchannel: tagged with its WAL, or untagged.
func (s *checkpointScan) count(pchannel string, wal commonpb.WALName) {
	ps := s.pch(pchannel)
	if wal == commonpb.WALName_Unknown {
		ps.untagged++
		return
	}
	ps.counts[wal]++
}

// Checkpoints reads, at one revision, the consume checkpoint of every pchannel
// and the seek position of every vchannel, with warnings written to warn.
// collection (0: all) and pchannel ("": all) narrow what is reported; the
// split-state counts of a reported pchannel always cover all its positions.
// wpMetaPrefix is woodpecker.meta.prefix ("": an etcd override or the default).
func Checkpoints(ctx context.Context, inst *instance.Instance, collection int64, pchannel, wpMetaPrefix string, warn io.Writer) (*CheckpointResult, error) {
	if warn == nil {
		warn = io.Discard
	}
	s := &checkpointScan{
		collection: collection, pchannel: pchannel, warn: warn,
		pchannels:   map[string]*pchannelState{},
		collections: map[int64]collMeta{},
		wanted:      map[string]bool{},
		resolver:    models.NewSeekResolver(),
		census:      models.NewWALCensus(nil),
		dropped:     map[string]string{},
		cpErrors:    map[string]string{},
		metaOnly:    map[string]string{},
	}
	prefixes := []string{
		models.PChannelPrefix, models.WALPrefix,
		models.CollectionInfoPrefix, models.LegacyCollectionPrefix,
		models.ChannelCPPrefix, models.SegmentPrefix,
	}
	rev, err := inst.Walk(ctx, 0, prefixes, s.add)
	if err != nil {
		return nil, err
	}
	pchannels := map[string]bool{}
	for name := range s.pchannels {
		pchannels[name] = true
	}
	inv, err := woodpecker.Find(ctx, inst, rev, woodpecker.Options{MetaPrefix: wpMetaPrefix, PChannels: pchannels})
	if err != nil {
		return nil, err
	}
	res, err := s.result(rev)
	if err != nil {
		return nil, err
	}
	res.Woodpecker = WoodpeckerMeta{Effective: inv.Effective, Prefixes: inv.Prefixes}
	for _, p := range inv.Prefixes {
		if !p.Readable {
			s.warnf("woodpecker metadata under %s/ not read: %s", p.Prefix, p.Error)
		}
	}
	if err := addGeneration(ctx, inst, res); err != nil {
		return nil, err
	}
	reported := map[string]bool{}
	for _, p := range res.PChannels {
		reported[p.Name] = true
	}
	logs := inv.InstanceLogs(func(pc string) bool { return (s.pchannel == "" && s.collection == 0) || reported[pc] })
	slices.SortStableFunc(logs, func(a, b woodpecker.Log) int { return naturalCompare(a.Name, b.Name) })
	for _, l := range logs {
		res.WoodpeckerLogs = append(res.WoodpeckerLogs, WoodpeckerLogRow{
			Log: l.Name, Prefix: l.Prefix + "/logs/", MetaPrefix: l.Prefix, Legacy: l.Prefix == models.WoodpeckerLegacyRoot,
			Effective: l.Effective, LogID: l.ID, Segments: l.Segments, FirstSegment: l.FirstSegment, LastSegment: l.LastSegment,
			TruncatedSegment: l.TruncatedSegment, TruncatedEntry: l.TruncatedEntry, Keys: l.Keys, PChannel: true,
		})
	}
	return res, nil
}

func (s *checkpointScan) add(e instance.Entry) error {
	switch e.Kind {
	case models.KindPChannel:
		s.pch(e.PChannel).inMeta = true
	case models.KindVChannelMeta:
		// A vchannel the streamingnode knows: listed even when no datacoord
		// or rootcoord key names it (its level is then "none"). Filtered in
		// result, once the collection infos have named their vchannels.
		s.metaOnly[e.VChannel] = e.Rel
	case models.KindConsumeCheckpoint:
		ps := s.pch(e.PChannel)
		ps.cpKey = e.Rel
		cp, err := models.DecodeWALCheckpoint(e.Value)
		if err != nil {
			ps.cpErr = fmt.Sprintf("%s: %v", e.Rel, err)
			s.warnf("consume checkpoint %s does not decode: %v", e.Rel, err)
			return nil
		}
		ps.cp = cp
		if cp.HasMessageID {
			// Consume checkpoints are scanned before every position, so the
			// census attributes untagged positions to this WAL.
			s.census.AddCheckpoint(e.PChannel, cp.WAL)
			if cp.WAL != commonpb.WALName_Unknown {
				ps.counts[cp.WAL]++
			}
		}
	case models.KindCollectionInfo, models.KindLegacyCollection:
		if models.IsTombstone(e.Value) {
			return nil
		}
		c, err := models.DecodeCollectionInfo(e.Value)
		if err != nil {
			s.warnf("collection info %s does not decode (its start positions are not considered): %v", e.Rel, err)
			return nil
		}
		// Collection start positions carry no WAL_name: they count as untagged.
		for _, sp := range c.StartPositions {
			s.count(models.StartPositionPChannel(sp.Key), commonpb.WALName_Unknown)
		}
		s.census.AddCollection(c)
		if s.collection != 0 && c.ID != s.collection {
			return nil
		}
		var vs []string
		for _, v := range c.VChannels {
			if s.inScope(v, c.ID) {
				vs = append(vs, v)
				s.wanted[v] = true
			}
		}
		if len(vs) == 0 && len(c.VChannels) > 0 {
			return nil
		}
		s.collections[c.ID] = collMeta{name: c.Name, state: c.State}
		scoped := *c
		scoped.VChannels = vs
		s.resolver.AddCollection(e.Rel, &scoped)
	case models.KindChannelCP:
		pos, err := models.DecodePosition(e.Value)
		if err != nil {
			if s.inScope(e.VChannel, 0) {
				s.cpErrors[e.VChannel] = fmt.Sprintf("%s: %v", e.Rel, err)
			}
			s.warnf("channel checkpoint %s does not decode: %v", e.Rel, err)
			return nil
		}
		if models.IsDroppedChannelCP(pos) {
			if s.inScope(e.VChannel, 0) {
				s.dropped[e.VChannel] = e.Rel
			}
			return nil
		}
		s.count(e.PChannel, pos.GetWALName())
		s.census.Add(e.PChannel, pos.GetWALName(), pos.GetMsgID())
		if s.inScope(e.VChannel, 0) {
			s.resolver.AddChannelCP(e.Rel, e.VChannel, pos)
		}
	case models.KindSegment:
		seg, err := models.DecodeSegmentInfo(e.Value)
		if err != nil {
			s.warnf("segment %s does not decode (not considered as a seek position): %v", e.Rel, err)
			return nil
		}
		if seg.InsertChannel == "" {
			return nil
		}
		pc := models.PChannelOf(seg.InsertChannel)
		for _, p := range []*msgpb.MsgPosition{seg.StartPosition, seg.DMLPosition} {
			if p != nil {
				s.count(pc, p.GetWALName())
				s.census.Add(pc, p.GetWALName(), p.GetMsgID())
			}
		}
		if s.inScope(seg.InsertChannel, seg.CollectionID) {
			s.resolver.AddSegment(e.Rel, seg)
		}
	}
	return nil
}

func (s *checkpointScan) cpWAL(pchannel string) commonpb.WALName {
	if ps, ok := s.pchannels[pchannel]; ok && ps.cp != nil && ps.cp.HasMessageID {
		return ps.cp.WAL
	}
	return commonpb.WALName_Unknown
}

func (s *checkpointScan) result(rev int64) (*CheckpointResult, error) {
	res := &CheckpointResult{Revision: rev, PChannels: []PChannelRow{}, VChannels: []VChannelRow{}, SplitPChannels: []string{}, WoodpeckerLogs: []WoodpeckerLogRow{}}
	listed := map[string]bool{}
	for _, sk := range s.resolver.Seeks() {
		listed[sk.VChannel] = true
		res.VChannels = append(res.VChannels, s.vchannelRow(sk))
	}
	for v := range s.dropped {
		if !listed[v] {
			listed[v] = true
			res.VChannels = append(res.VChannels, s.vchannelRow(models.Seek{VChannel: v, PChannel: models.PChannelOf(v), Level: models.SeekNone}))
		}
	}
	for _, extra := range []map[string]string{s.cpErrors, s.metaOnly} {
		for v := range extra {
			if listed[v] || !s.inScope(v, 0) {
				continue
			}
			listed[v] = true
			res.VChannels = append(res.VChannels, s.vchannelRow(models.Seek{VChannel: v, PChannel: models.PChannelOf(v), Level: models.SeekNone}))
		}
	}
	slices.SortFunc(res.VChannels, func(a, b VChannelRow) int {
		if c := naturalCompare(a.PChannel, b.PChannel); c != 0 {
			return c
		}
		return naturalCompare(a.Name, b.Name)
	})

	// The pchannels reported: all of them, the one named, or those of the collection.
	names := map[string]bool{}
	switch {
	case s.pchannel != "":
		if _, ok := s.pchannels[s.pchannel]; !ok && len(res.VChannels) == 0 {
			return nil, fmt.Errorf("no pchannel %q in this instance (no pchannel meta, consume checkpoint or vchannel of it)", s.pchannel)
		}
		names[s.pchannel] = true
	case s.collection != 0:
		if len(res.VChannels) == 0 {
			return nil, fmt.Errorf("no collection %d in this instance (no collection info, channel checkpoint or segment of it)", s.collection)
		}
		for _, v := range res.VChannels {
			names[v.PChannel] = true
		}
	default:
		for n := range s.pchannels {
			names[n] = true
		}
		for _, v := range res.VChannels {
			names[v.PChannel] = true
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	slices.SortFunc(sorted, naturalCompare)
	for _, n := range sorted {
		row := s.pchannelRow(n)
		if row.Split {
			res.SplitPChannels = append(res.SplitPChannels, n)
			s.warnf("pchannel %s is in a SPLIT STATE: its positions are in different WALs (%s); Milvus cannot start on it. An interrupted `reset checkpoint` leaves this: run it again to complete it, or `restore --file` to roll it back",
				n, positionsText(row.Positions))
		}
		res.PChannels = append(res.PChannels, row)
	}
	return res, nil
}

func (s *checkpointScan) pchannelRow(name string) PChannelRow {
	ps := s.pch(name)
	row := PChannelRow{Name: name, InMeta: ps.inMeta, CheckpointKey: ps.cpKey, Untagged: ps.untagged, WALCounts: map[string]int{}, Error: ps.cpErr}
	for w, n := range ps.counts {
		row.WALCounts[walName(w)] = n
	}
	census := s.census.PChannel(name)
	row.Positions, row.Split = census.Positions, census.Split
	if cp := ps.cp; cp != nil {
		row.HasCheckpoint = true
		row.UnknownFields = cp.UnknownFieldNumbers
		if a := cp.AlterWAL; a != nil {
			row.AlterWAL = &AlterWALRow{Target: walName(a.Target), Stage: a.Stage.String(), Interrupted: a.Interrupted(), TimeTick: a.TimeTick, Description: a.Describe()}
		}
		row.TimeTick, row.Time = cp.TimeTick, tsoTime(cp.TimeTick)
		row.ReplicateCheckpoint, row.ReplicateCluster = cp.HasReplicateCheckpoint, cp.ReplicateCluster
		if cp.HasMessageID {
			row.WAL, row.MessageID = walName(cp.WAL), cp.MessageID
			h, err := models.DescribeText(cp.WAL, cp.MessageID)
			if err != nil {
				row.Error = fmt.Sprintf("message_id does not decode as %s: %v", walName(cp.WAL), err)
				s.warnf("consume checkpoint %s: %s", ps.cpKey, row.Error)
			}
			row.MessageIDHuman = h
			if b := textIDBytes(cp.WAL, cp.MessageID); b != nil {
				row.MessageIDHex, row.MessageIDBase64 = hex.EncodeToString(b), base64.StdEncoding.EncodeToString(b)
			}
		} else {
			row.Error = "consume checkpoint has no message_id"
		}
	}
	return row
}

func (s *checkpointScan) vchannelRow(sk models.Seek) VChannelRow {
	row := VChannelRow{Name: sk.VChannel, PChannel: sk.PChannel, Collection: sk.Collection, Level: string(sk.Level), SourceKey: sk.Source}
	if c, ok := s.collections[sk.Collection]; ok && sk.Collection != 0 {
		row.CollectionName, row.CollectionState = c.name, c.state
	}
	if key, ok := s.dropped[sk.VChannel]; ok {
		row.Dropped = true
		if sk.Position == nil {
			row.SourceKey = key
		}
	}
	if e, ok := s.cpErrors[sk.VChannel]; ok {
		row.Error = "channel checkpoint does not decode: " + e
	}
	if sk.Position == nil {
		return row
	}
	pos := sk.Position
	wal, guessed := models.PositionWAL(pos, s.cpWAL(sk.PChannel))
	row.WAL, row.WALGuessed = walName(wal), guessed
	row.MessageIDHex, row.MessageIDBase64 = hex.EncodeToString(pos.GetMsgID()), base64.StdEncoding.EncodeToString(pos.GetMsgID())
	row.Timestamp, row.Time = pos.GetTimestamp(), tsoTime(pos.GetTimestamp())
	if wal == commonpb.WALName_Unknown {
		row.Error = "position names no WAL and its pchannel has no consume checkpoint naming one"
		s.warnf("vchannel %s: %s (%s)", sk.VChannel, row.Error, sk.Source)
		return row
	}
	h, errText := describe(wal, pos.GetMsgID())
	row.MessageIDHuman = h
	if errText != "" {
		row.Error = fmt.Sprintf("message id does not decode as %s: %s", walName(wal), errText)
		s.warnf("vchannel %s: position %s: %s", sk.VChannel, sk.Source, row.Error)
	}
	return row
}

// textIDBytes is a message id's text form (commonpb.MessageID.id) as the
// bytes a MsgPosition holds, nil when it does not decode in wal.
func textIDBytes(wal commonpb.WALName, text string) []byte {
	c, err := msgid.For(wal)
	if err != nil {
		return nil
	}
	id, err := c.DecodeText(text)
	if err != nil {
		return nil
	}
	return id.Bytes()
}

func countsText(counts map[string]int) string { return joinCounts(counts, " ", ", ") }

func positionsText(counts map[string]int64) string {
	c := make(map[string]int, len(counts))
	for k, v := range counts {
		c[k] = int(v)
	}
	return countsText(c)
}

func positionsWord(counts map[string]int64) string {
	c := make(map[string]int, len(counts))
	for k, v := range counts {
		c[k] = int(v)
	}
	return countsWord(c)
}

// countsWord renders counts as one word for the line format: pulsar:1,woodpecker:2.
func countsWord(counts map[string]int) string { return joinCounts(counts, ":", ",") }

func joinCounts(counts map[string]int, kv, sep string) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s%s%d", k, kv, counts[k])
	}
	return strings.Join(parts, sep)
}

// JSON implements framework.Result.
func (r *CheckpointResult) JSON() any { return r }

// Table implements framework.Result. By default the tables fit 120 columns:
// the pchannel table counts positions in one column and notes a replicate
// checkpoint and an online WAL switch (described below the table); the
// vchannel table leaves out the collection, timestamp and source key (a
// production vchannel name is some 45 columns wide); message ids
// and notes are elided with "...". --wide shows every column in full.
func (r *CheckpointResult) Table(w io.Writer) error {
	r.generationBlock(w)
	if shared := r.shortNames(w); shared != "" {
		fmt.Fprintf(w, "PCHANNELS (consume checkpoints; names without %s)\n", framework.EscapeText(shared))
	} else {
		fmt.Fprintln(w, "PCHANNELS (consume checkpoints)")
	}
	if err := r.pchannelTable(w); err != nil {
		return err
	}
	if err := r.targetTable(w); err != nil {
		return err
	}
	if !r.wide {
		r.alterWALBlock(w)
	}
	if !r.pchannelsOnly {
		fmt.Fprintln(w)
		if r.wide {
			fmt.Fprintln(w, "VCHANNELS (datacoord seek positions)")
		} else {
			fmt.Fprintln(w, "VCHANNELS (datacoord seek positions; --wide adds collection, timestamp and source key)")
		}
		if err := r.vchannelTable(w); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, r.summaryLine())
	if r.showWoodpecker() {
		if err := r.woodpeckerBlock(w); err != nil {
			return err
		}
	}
	if len(r.SplitPChannels) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "!!! WARNING: SPLIT STATE !!!")
		fmt.Fprintln(w, "The positions of these pchannels are in different WALs; Milvus cannot start on them:")
		for _, p := range r.PChannels {
			if p.Split {
				fmt.Fprintf(w, "  %s: consume checkpoint in %s; positions by WAL: %s (untagged: %d); with the untagged ones: %s\n",
					p.Name, orDash(p.WAL), countsText(p.WALCounts), p.Untagged, positionsText(p.Positions))
			}
		}
		fmt.Fprintln(w, "An interrupted `reset checkpoint` leaves this state (it writes consume checkpoints last).")
		r.nextStepsBlock(w)
	}
	return nil
}

// shortNames decides, for a terminal narrower than piped output (80
// columns), to name the pchannels in the table by the part that tells them
// apart (dml_0), so that the columns that tell a split apart (POSITIONS)
// keep their room; it returns the prefix the names share ("": names in
// full).
func (r *CheckpointResult) shortNames(w io.Writer) string {
	r.pchannelNames = nil
	if r.wide || framework.Width(w) >= framework.PipeWidth || len(r.PChannels) < 2 {
		return ""
	}
	names := make([]string, len(r.PChannels))
	for i, p := range r.PChannels {
		names[i] = p.Name
	}
	n := framework.SharedPrefixLen(names)
	if n == 0 {
		return ""
	}
	r.pchannelNames = names
	return names[0][:n]
}

// pchannelName is a pchannel's name in the table (see shortNames).
func (r *CheckpointResult) pchannelName(name string) string {
	if r.pchannelNames == nil {
		return name
	}
	return framework.DistinctPart(name, r.pchannelNames)
}

// nextSteps fills the commands that complete or roll back the interrupted
// reset of a split state: the reset to the WAL the moved positions name
// (the interrupted run's own command line when its backup is found), and
// the restore of the backups of the chain, newest first, found in folders.
func (r *CheckpointResult) nextSteps(root string, folders []string) {
	var split []models.PChannelWALs
	for _, p := range r.PChannels {
		if p.Split {
			split = append(split, models.PChannelWALs{PChannel: p.Name, CheckpointWAL: p.WAL, Positions: p.Positions, Split: true})
		}
	}
	r.SplitTarget = models.InterruptedTarget(split)
	r.BackupFolders = folders
	var newest *apply.BackupListing
	for _, b := range apply.ListBackups(folders, root) {
		if strings.HasPrefix(b.Header.Command, "reset checkpoint") && b.Complete && (r.SplitTarget == "" || b.Header.Target == r.SplitTarget) {
			newest = &b
			break
		}
	}
	target := r.SplitTarget
	if newest != nil && target == "" {
		target = newest.Header.Target
	}
	if target != "" {
		r.CompleteCommand = "reset checkpoint --target-wal " + target + " --run"
		if newest != nil {
			r.CompleteCommand = rerunCommand(newest.Header.Command)
		}
	}
	if newest != nil {
		chain, _ := apply.BackupChain(newest.Path)
		for _, b := range chain {
			r.RollbackCommands = append(r.RollbackCommands, "restore --file "+b+" --run")
		}
	}
}

// rerunCommand is a backup header's command line with --run at its end
// (and without --yes: the re-run asks on a terminal).
func rerunCommand(command string) string {
	var words []string
	for _, w := range strings.Fields(command) {
		if w != "--run" && w != "--yes" {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ") + " --run"
}

// nextStepsBlock prints the two ways out of a split state, each command on
// a line of its own.
func (r *CheckpointResult) nextStepsBlock(w io.Writer) {
	folders := make([]string, len(r.BackupFolders))
	for i, f := range r.BackupFolders {
		folders[i] = framework.EscapeText(f)
	}
	if r.CompleteCommand != "" {
		fmt.Fprintf(w, "To complete it (the moved positions name %s), run the reset again:\n  %s\n", orDash(r.SplitTarget), framework.EscapeText(r.CompleteCommand))
	} else {
		fmt.Fprintln(w, "To complete it, run the reset again: reset checkpoint --target-wal WAL --run (no position names the WAL it moved to)")
	}
	switch len(r.RollbackCommands) {
	case 0:
		fmt.Fprintf(w, "To roll it back, restore the interrupted run's backup; none found in %s:\n", strings.Join(folders, ", "))
		fmt.Fprintln(w, "  show checkpoint --backup-dir DIR looks where the run wrote it (its --backup-dir);")
		fmt.Fprintln(w, "  backups --dir DIR lists the backups of a folder")
	case 1:
		fmt.Fprintf(w, "To roll it back (backup found in %s):\n  %s\n", strings.Join(folders, ", "), framework.EscapeText(r.RollbackCommands[0]))
	default:
		fmt.Fprintf(w, "To roll it back, restore the chain of backups, newest first (found in %s):\n", strings.Join(folders, ", "))
		for _, c := range r.RollbackCommands {
			fmt.Fprintf(w, "  %s\n", framework.EscapeText(c))
		}
	}
}

func (r *CheckpointResult) pchannelTable(w io.Writer) error {
	header := []string{"PCHANNEL", "WAL", "MESSAGE ID", "TIME TICK", "POSITIONS", "NOTE"}
	if r.wide {
		header = []string{"PCHANNEL", "WAL", "MESSAGE ID", "TIME TICK", "REPLICATE CP", "ALTER WAL", "WAL-TAGGED POSITIONS", "UNTAGGED", "NOTE"}
	}
	// The counts are short and tell a split apart: the id, the time and the
	// note elide first (the time keeps its start: the date).
	t := newTable(w, header...).fit(r.wide, 2, 3, len(header)-1).cutEnd(2, 3)
	for _, p := range r.PChannels {
		var notes []string
		if p.Split {
			notes = append(notes, "SPLIT")
		}
		if p.Error != "" {
			notes = append(notes, p.Error)
		}
		if !p.HasCheckpoint && p.Error == "" {
			notes = append(notes, "no consume checkpoint")
		}
		if len(p.UnknownFields) > 0 {
			notes = append(notes, "unknown fields "+joinInt32(p.UnknownFields)+" kept")
		}
		if r.wide {
			alter := "-"
			if p.AlterWAL != nil {
				alter = p.AlterWAL.Description
			}
			t.row(p.Name, p.WAL, p.MessageIDHuman, p.Time, yesNo(p.ReplicateCheckpoint), alter, countsText(p.WALCounts), itoa(p.Untagged), strings.Join(notes, "; "))
			continue
		}
		if p.ReplicateCheckpoint {
			notes = append(notes, strings.TrimSpace("replicate checkpoint "+p.ReplicateCluster))
		}
		if p.AlterWAL != nil {
			notes = append(notes, "online WAL switch (see ALTER WAL)")
		}
		t.row(r.pchannelName(p.Name), p.WAL, p.MessageIDHuman, p.Time, positionsText(p.Positions), strings.Join(notes, "; "))
	}
	return t.flush()
}

// alterWALBlock describes, below the narrow pchannel table, the online WAL
// switches the consume checkpoints record (--wide has them in a column).
func (r *CheckpointResult) alterWALBlock(w io.Writer) {
	header := false
	for _, p := range r.PChannels {
		if p.AlterWAL == nil {
			continue
		}
		if !header {
			fmt.Fprintln(w)
			fmt.Fprintln(w, "ALTER WAL (online WAL switches recorded in the consume checkpoints)")
			header = true
		}
		fmt.Fprintf(w, "  %s: %s\n", framework.EscapeText(p.Name), p.AlterWAL.Description)
	}
}

func (r *CheckpointResult) vchannelTable(w io.Writer) error {
	header := []string{"VCHANNEL", "LEVEL", "WAL", "MESSAGE ID", "NOTE"}
	if r.wide {
		header = []string{"VCHANNEL", "COLLECTION", "LEVEL", "WAL", "MESSAGE ID", "TIMESTAMP", "SOURCE KEY", "NOTE"}
	}
	// A cut message id keeps its start (a Pulsar ledger, a Woodpecker segment).
	t := newTable(w, header...).fit(r.wide, 3, 4).cutEnd(3)
	for _, v := range r.VChannels {
		wal := v.WAL
		if v.WALGuessed && wal != "" {
			wal += " (guessed)"
		}
		var notes []string
		if v.Dropped {
			notes = append(notes, "dropped vchannel")
		}
		if v.CollectionState != "" && v.CollectionState != "Created" {
			notes = append(notes, "collection "+v.CollectionState)
		}
		if v.Error != "" {
			notes = append(notes, v.Error)
		}
		if !r.wide {
			t.row(v.Name, v.Level, wal, v.MessageIDHuman, strings.Join(notes, "; "))
			continue
		}
		coll := i64(v.Collection)
		if v.CollectionName != "" {
			coll += " (" + v.CollectionName + ")"
		}
		t.row(v.Name, coll, v.Level, wal, v.MessageIDHuman, v.Time, v.SourceKey, strings.Join(notes, "; "))
	}
	return t.flush()
}

// Lines implements framework.Result.
func (r *CheckpointResult) Lines(w io.Writer) error {
	for _, p := range r.PChannels {
		if err := line(w, "pchannel", "name", p.Name, "wal", p.WAL, "message_id", p.MessageID, "message_id_human", p.MessageIDHuman,
			"time_tick", u64(p.TimeTick), "time", p.Time, "replicate_checkpoint", boolS(p.ReplicateCheckpoint),
			"alter_wal", alterWord(p.AlterWAL), "split", boolS(p.Split), "positions", positionsWord(p.Positions),
			"wal_counts", countsWord(p.WALCounts), "untagged", itoa(p.Untagged), "error", p.Error); err != nil {
			return err
		}
	}
	for _, v := range r.VChannels {
		if err := line(w, "vchannel", "name", v.Name, "pchannel", v.PChannel, "collection", i64(v.Collection), "level", v.Level,
			"source_key", v.SourceKey, "wal", v.WAL, "wal_guessed", boolS(v.WALGuessed), "message_id_human", v.MessageIDHuman,
			"timestamp", u64(v.Timestamp), "time", v.Time, "dropped", boolS(v.Dropped), "error", v.Error); err != nil {
			return err
		}
	}
	for _, p := range r.PChannels {
		if p.Split {
			if err := line(w, "split", "pchannel", p.Name, "checkpoint_wal", p.WAL, "wal_counts", countsWord(p.WALCounts), "positions", positionsWord(p.Positions)); err != nil {
				return err
			}
		}
	}
	if r.showWoodpecker() {
		e := r.Woodpecker.Effective
		if err := line(w, "woodpecker", "effective_prefix", e.Prefix, "reason", e.Reason, "meta_prefix", e.MetaPrefix, "from", e.From); err != nil {
			return err
		}
	}
	for _, l := range r.WoodpeckerLogs {
		if err := line(w, "woodpecker_log", "log", l.Log, "prefix", l.Prefix, "segments", i64(l.Segments), "legacy", boolS(l.Legacy), "pchannel", boolS(l.PChannel),
			"log_id", i64(l.LogID), "effective", boolS(l.Effective), "truncated", truncText(l.TruncatedSegment, l.TruncatedEntry), "keys", i64(l.Keys)); err != nil {
			return err
		}
	}
	if err := r.targetLines(w); err != nil {
		return err
	}
	// The summary comes even for an empty result: a script reads one line.
	return line(w, "summary", "pchannels", itoa(len(r.PChannels)), "vchannels", itoa(len(r.VChannels)),
		"split", itoa(len(r.SplitPChannels)), "woodpecker_logs", itoa(len(r.WoodpeckerLogs)))
}

// alterWord renders alter_wal_state as one word for the line format: kafka/ADVANCE_CHECKPOINT.
func alterWord(a *AlterWALRow) string {
	if a == nil {
		return ""
	}
	return a.Target + "/" + a.Stage
}

func joinInt32(vs []int32) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = i32(v)
	}
	return strings.Join(parts, ",")
}

// showWoodpecker: the table shows woodpecker's section when it lists logs or
// a pchannel's consume checkpoint is on woodpecker.
func (r *CheckpointResult) showWoodpecker() bool {
	if len(r.WoodpeckerLogs) > 0 {
		return true
	}
	for _, p := range r.PChannels {
		if p.WAL == "woodpecker" {
			return true
		}
	}
	return false
}

func segmentsText(l WoodpeckerLogRow) string {
	if l.Segments == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%d-%d)", l.Segments, l.FirstSegment, l.LastSegment)
}

func truncText(seg, entry int64) string {
	if seg < 0 && entry < 0 {
		return "-"
	}
	return fmt.Sprintf("%d:%d", seg, entry)
}

func idOrDash(id int64) string {
	if id < 0 {
		return "-"
	}
	return i64(id)
}

func (r *CheckpointResult) woodpeckerPrefixes() string {
	var out []string
	for _, p := range r.Woodpecker.Prefixes {
		out = append(out, p.Prefix+"/")
	}
	return strings.Join(out, ", ")
}

// woodpeckerBlock is the table's woodpecker section: the effective prefix,
// then the instance's logs.
func (r *CheckpointResult) woodpeckerBlock(w io.Writer) error {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "WOODPECKER LOGS of this instance's pchannels (woodpecker's own metadata)")
	fmt.Fprintln(w, "effective prefix: "+r.Woodpecker.Effective.Describe())
	if len(r.WoodpeckerLogs) == 0 {
		fmt.Fprintln(w, "no log of this instance's pchannels under "+r.woodpeckerPrefixes())
		return nil
	}
	t := newTable(w, "LOG", "PREFIX", "LOG ID", "SEGMENTS", "TRUNCATED AT", "NOTE").fit(r.wide, 1)
	for _, l := range r.WoodpeckerLogs {
		var notes []string
		if l.Legacy {
			notes = append(notes, "legacy top-level prefix, shared by every instance")
		}
		if !l.Effective {
			notes = append(notes, "not the effective prefix")
		}
		if l.Segments == 0 && l.TruncatedSegment >= 0 {
			notes = append(notes, "truncated without segments: not fresh")
		}
		t.row(l.Log, l.Prefix, idOrDash(l.LogID), segmentsText(l), truncText(l.TruncatedSegment, l.TruncatedEntry), strings.Join(notes, "; "))
	}
	return t.flush()
}
