package woodpecker

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
)

type fixture struct {
	t    *testing.T
	cli  *clientv3.Client
	inst *instance.Instance
}

func newFixture(t *testing.T, root string) *fixture {
	cli, ep := etcdtest.Start(t)
	f := &fixture{t: t, cli: cli, inst: instance.New(cli, models.NewLayout(root, "meta"), []string{ep})}
	for i := range 2 {
		pc := f.pc(i)
		f.put(f.inst.Layout.Meta(models.PChannelPrefix+pc), sample.PChannel(pc, 1))
	}
	return f
}

func (f *fixture) pc(i int) string {
	return f.inst.Layout.RootPath + "-rootcoord-dml_" + string(rune('0'+i))
}

func (f *fixture) put(key string, v []byte) {
	f.t.Helper()
	if _, err := f.cli.Put(context.Background(), key, string(v)); err != nil {
		f.t.Fatal(err)
	}
}

// wpLog writes a log as woodpecker does: its LogMeta, then segments.
func (f *fixture) wpLog(p, name string, id, truncSeg, truncEntry int64, segments ...int64) {
	f.put(p+"/logs/"+name, sample.WoodpeckerLog{ID: id, TruncatedSegment: truncSeg, TruncatedEntry: truncEntry}.Encode())
	for _, s := range segments {
		f.put(p+"/logs/"+name+"/segments/"+itoa(s), sample.WoodpeckerSegment{No: s, State: sample.WoodpeckerSealed, LastEntry: 9, Size: 1000}.Encode())
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func (f *fixture) find(opts Options) *Inventory {
	f.t.Helper()
	inv, err := Find(context.Background(), f.inst, 0, opts)
	require.NoError(f.t, err)
	return inv
}

func logNamed(t *testing.T, inv *Inventory, prefix, name string) Log {
	t.Helper()
	for _, l := range inv.Logs {
		if l.Prefix == prefix && l.Name == name {
			return l
		}
	}
	t.Fatalf("no log %s under %s in %+v", name, prefix, inv.Logs)
	return Log{}
}

func TestDefaultPrefix(t *testing.T) {
	f := newFixture(t, "by-dev")
	p := "by-dev/woodpecker"
	f.put(p+"/logidgen", []byte("2"))
	f.put(p+"/instance", []byte("uuid"))
	f.wpLog(p, f.pc(0), 1, -1, -1, 0, 1, 2)
	f.put(p+"/logs/"+f.pc(0)+"/lock", []byte("l"))
	f.put(p+"/readers/1/r0", []byte("reader"))
	f.put(p+"/cleaning/1/0", []byte("clean"))
	f.put(p+"/marking/1/0", []byte("mark"))
	f.put(p+"/readers/11/r0", []byte("orphan: log 11 does not exist"))
	// A truncated log without segments: not fresh.
	f.wpLog(p, f.pc(1), 2, 4, 17)
	f.put(p+"/quorums/1", []byte("q"))

	type kindKey struct {
		kind models.WPKeyKind
		key  string
	}
	var streamed []kindKey
	inv := f.find(Options{OnKey: func(k Key) error {
		streamed = append(streamed, kindKey{k.Kind, strings.TrimPrefix(k.Key, p+"/")})
		return nil
	}})
	assert.Equal(t, Effective{Prefix: p, Reason: ReasonDefault, Configured: p, MetaPrefix: "woodpecker", From: "default",
		Note: "woodpecker.meta.prefix from milvus.yaml is not visible to heron: pass --wp-meta-prefix if it is not the default"}, inv.Effective)
	require.Len(t, inv.Prefixes, 3)
	assert.Equal(t, Prefix{Prefix: p, Roles: []string{RoleDefault}, Effective: true, Readable: true, Keys: 13, Logs: 2, Orphans: 1}, inv.Prefixes[0])
	assert.Equal(t, "woodpecker", inv.Prefixes[1].Prefix)
	assert.Equal(t, "by-dev/wp", inv.Prefixes[2].Prefix)

	l0 := logNamed(t, inv, p, f.pc(0))
	assert.Equal(t, int64(1), l0.ID)
	assert.Equal(t, int64(3), l0.Segments)
	assert.Equal(t, []int64{0, 2, 3000}, []int64{l0.FirstSegment, l0.LastSegment, l0.SegmentBytes})
	assert.Equal(t, []int64{-1, -1}, []int64{l0.TruncatedSegment, l0.TruncatedEntry})
	assert.True(t, l0.Locked && l0.PChannel && l0.Effective && l0.HasMeta)
	assert.Equal(t, int64(8), l0.Keys, "LogMeta, lock, 3 segments, reader, cleaning, marking")
	assert.Positive(t, l0.MaxModRevision)

	l1 := logNamed(t, inv, p, f.pc(1))
	assert.Equal(t, []int64{2, 0, 4, 17, 1}, []int64{l1.ID, l1.Segments, l1.TruncatedSegment, l1.TruncatedEntry, l1.Keys})
	assert.Equal(t, "by-dev/woodpecker/logs/by-dev-rootcoord-dml_1 (id 2, no segments, truncated at 4:17, 1 keys)", l1.Describe())
	assert.Len(t, inv.InstanceLogs(nil), 2)
	assert.Len(t, inv.InstanceLogs(func(pc string) bool { return pc == f.pc(1) }), 1)

	assert.ElementsMatch(t, []kindKey{
		{models.WPLog, "logs/" + f.pc(0)}, {models.WPLogLock, "logs/" + f.pc(0) + "/lock"},
		{models.WPSegment, "logs/" + f.pc(0) + "/segments/0"}, {models.WPSegment, "logs/" + f.pc(0) + "/segments/1"},
		{models.WPSegment, "logs/" + f.pc(0) + "/segments/2"},
		{models.WPLog, "logs/" + f.pc(1)}, {models.WPCleaning, "cleaning/1/0"}, {models.WPMarking, "marking/1/0"}, {models.WPReader, "readers/1/r0"},
	}, streamed, "every per-log key, never logidgen, instance, quorums or an orphan")
}

func TestLegacyPrefixShared(t *testing.T) {
	f := newFixture(t, "by-dev")
	// Another instance ("other") shares the legacy prefix: its logs are listed, not the instance's.
	f.put("woodpecker/logidgen", []byte("3"))
	f.wpLog("woodpecker", f.pc(0), 1, -1, -1, 0)
	f.wpLog("woodpecker", "other-rootcoord-dml_0", 2, -1, -1, 0, 1)
	f.wpLog("woodpecker", "by-dev-rootcoord-dml_10", 3, -1, -1, 0)
	// Stale logs under the configured prefix (a 3.0 start before legacy keys appeared).
	f.wpLog("by-dev/woodpecker", f.pc(1), 1, -1, -1, 0)
	// heron's old assumption, harmless.
	f.wpLog("by-dev/wp", f.pc(1), 1, -1, -1)

	inv := f.find(Options{})
	assert.Equal(t, ReasonLegacy, inv.Effective.Reason)
	assert.Equal(t, "woodpecker", inv.Effective.Prefix)
	assert.Equal(t, "woodpecker/logidgen", inv.Effective.LegacyKey)
	assert.Equal(t, "by-dev/woodpecker", inv.Effective.Configured)
	assert.Contains(t, inv.Effective.Describe(), "legacy: woodpecker/logidgen exists")
	assert.Equal(t, []string{"woodpecker", "by-dev/woodpecker", "by-dev/wp"}, []string{inv.Prefixes[0].Prefix, inv.Prefixes[1].Prefix, inv.Prefixes[2].Prefix})
	assert.True(t, inv.Prefixes[0].Effective)
	assert.False(t, inv.Prefixes[1].Effective)

	var mine []string
	for _, l := range inv.InstanceLogs(nil) {
		mine = append(mine, l.Prefix+" "+l.Name)
	}
	assert.Equal(t, []string{"woodpecker " + f.pc(0), "by-dev/woodpecker " + f.pc(1), "by-dev/wp " + f.pc(1)}, mine)
	assert.False(t, logNamed(t, inv, "woodpecker", "other-rootcoord-dml_0").PChannel)
	assert.False(t, logNamed(t, inv, "woodpecker", "by-dev-rootcoord-dml_10").PChannel)
}

func TestLegacyDetectionKeys(t *testing.T) {
	f := newFixture(t, "by-dev")
	reason := func(key string) string {
		_, err := f.cli.Delete(context.Background(), "woodpecker", clientv3.WithPrefix())
		require.NoError(t, err)
		f.put(key, []byte("v"))
		return f.find(Options{}).Effective.Reason
	}
	for _, key := range []string{"woodpecker/instance", "woodpecker/version", "woodpecker/quorumidgen", "woodpecker/conditionwrite",
		"woodpecker/logs/x", "woodpecker/quorums/1", "woodpecker/logstores/n", "woodpecker/readers/1/r", "woodpecker/cleaning/1/2"} {
		assert.Equal(t, ReasonLegacy, reason(key), key)
	}
	// Not legacy markers (hasLegacyMetadata does not look there).
	for _, key := range []string{"woodpecker/marking/1/2", "woodpecker/logs-deleted/x-1", "woodpeckers/logidgen"} {
		assert.Equal(t, ReasonDefault, reason(key), key)
	}
}

func TestConfiguredPrefix(t *testing.T) {
	f := newFixture(t, "inst1")
	f.wpLog("inst1/custom", f.pc(0), 1, -1, -1, 0, 1)
	f.wpLog("inst1/fromflag", f.pc(1), 1, -1, -1, 0)
	// The etcd config override, spelled as Milvus's formatKey allows.
	f.put("inst1/config/woodpecker/meta/prefix", []byte("custom"))

	inv := f.find(Options{})
	// inst1/fromflag, which nothing names, is found by its LogMeta (issue 28 §3).
	assert.Contains(t, inv.Effective.Note, "exist under inst1/fromflag/, a prefix heron was not told of")
	inv.Effective.Note = ""
	assert.Equal(t, Effective{Prefix: "inst1/custom", Reason: ReasonConfigured, Configured: "inst1/custom", MetaPrefix: "custom",
		From: "inst1/config/woodpecker/meta/prefix"}, inv.Effective)
	assert.Equal(t, []string{RoleConfigured}, inv.Prefixes[0].Roles)
	assert.Equal(t, "inst1/woodpecker", inv.Prefixes[2].Prefix, "the default prefix is looked at too")
	assert.Equal(t, int64(2), logNamed(t, inv, "inst1/custom", f.pc(0)).Segments)

	// The flag wins over the etcd override.
	inv = f.find(Options{MetaPrefix: "fromflag"})
	assert.Equal(t, "inst1/fromflag", inv.Effective.Prefix)
	assert.Equal(t, "--wp-meta-prefix", inv.Effective.From)
	assert.True(t, logNamed(t, inv, "inst1/fromflag", f.pc(1)).Effective)
	for _, p := range inv.Prefixes {
		if p.Prefix == "inst1/custom" {
			assert.Equal(t, []string{RoleFound}, p.Roles, "the override the flag replaced is read only because it holds the instance's logs")
		}
	}
	assert.Equal(t, int64(2), logNamed(t, inv, "inst1/custom", f.pc(0)).Segments)

	// A legacy key wins, and the configured prefix is still read.
	f.put("woodpecker/logidgen", []byte("1"))
	inv = f.find(Options{})
	assert.Equal(t, ReasonLegacy, inv.Effective.Reason)
	assert.Equal(t, "custom", inv.Effective.MetaPrefix)
	assert.Equal(t, int64(2), logNamed(t, inv, "inst1/custom", f.pc(0)).Segments)
	assert.False(t, logNamed(t, inv, "inst1/custom", f.pc(0)).Effective)
}

func TestParkedCopies(t *testing.T) {
	f := newFixture(t, "by-dev")
	p := "by-dev/woodpecker"
	// dml_1 was deleted (parked) and recreated; dml_10's parked copy is not dml_1's.
	f.put(p+"/logs-deleted/"+f.pc(1)+"-1733", sample.WoodpeckerLog{ID: 1, TruncatedSegment: -1, TruncatedEntry: -1}.Encode())
	f.put(p+"/logs-deleted/"+f.pc(1)+"-1733/segments/0", sample.WoodpeckerSegment{No: 0, State: sample.WoodpeckerSealed, LastEntry: 5, Size: 10}.Encode())
	f.put(p+"/cleaning/1/0", []byte("clean"))
	f.wpLog(p, f.pc(1), 2, -1, -1)
	f.put(p+"/logs-deleted/by-dev-rootcoord-dml_10-1800", sample.WoodpeckerLog{ID: 3, TruncatedSegment: -1, TruncatedEntry: -1}.Encode())
	// Only a parked copy: still a log of the pchannel.
	f.put(p+"/logs-deleted/"+f.pc(0)+"-99", sample.WoodpeckerLog{ID: 4, TruncatedSegment: 2, TruncatedEntry: 2}.Encode())

	inv := f.find(Options{})
	l1 := logNamed(t, inv, p, f.pc(1))
	assert.Equal(t, int64(2), l1.ID)
	assert.Equal(t, []int64{1}, l1.ParkedIDs)
	assert.Equal(t, int64(4), l1.Keys, "LogMeta, parked LogMeta, parked segment, cleaning of the parked id")
	assert.Equal(t, []int64{2, 1}, l1.IDs())
	l0 := logNamed(t, inv, p, f.pc(0))
	assert.False(t, l0.HasMeta)
	assert.Equal(t, int64(-1), l0.ID)
	assert.Equal(t, int64(1), l0.Keys)
	assert.False(t, logNamed(t, inv, p, "by-dev-rootcoord-dml_10").PChannel)
}

func TestUndecodable(t *testing.T) {
	f := newFixture(t, "by-dev")
	p := "by-dev/woodpecker"
	f.put(p+"/logs/"+f.pc(0), []byte{0xff})
	f.put(p+"/logs/"+f.pc(0)+"/segments/0", []byte{0xff})
	l := logNamed(t, f.find(Options{}), p, f.pc(0))
	assert.Equal(t, int64(2), l.Undecodable)
	assert.Equal(t, int64(2), l.Keys)
	assert.Equal(t, int64(1), l.Segments)
}

func TestOnKeyError(t *testing.T) {
	f := newFixture(t, "by-dev")
	f.wpLog("by-dev/woodpecker", f.pc(0), 1, -1, -1)
	_, err := Find(context.Background(), f.inst, 0, Options{OnKey: func(Key) error { return assert.AnError }})
	assert.ErrorIs(t, err, assert.AnError)
}

func TestInstancePChannels(t *testing.T) {
	f := newFixture(t, "by-dev")
	f.put(f.inst.Layout.Meta(models.ConsumeCheckpointKey("by-dev-rootcoord-dml_5")), []byte{})
	got, err := InstancePChannels(context.Background(), f.inst, 0)
	require.NoError(t, err)
	assert.Equal(t, map[string]bool{f.pc(0): true, f.pc(1): true, "by-dev-rootcoord-dml_5": true}, got)
}
