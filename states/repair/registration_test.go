package repair

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/schemapb"
	"google.golang.org/protobuf/proto"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/models/wire"
	"github.com/heron-shell/heron/tests/shelltest"
)

func (e *env) del(key string) {
	e.t.Helper()
	if _, err := e.cli.Delete(context.Background(), key); err != nil {
		e.t.Fatal(err)
	}
}

// laterField is a field of a later Milvus in a field's value: it must survive.
var laterField = (&wire.Builder{}).String(99, "later").Build()

// splitFields makes books (collection 100) a Milvus 2.2+ collection: its
// schema without inline fields, its fields under root-coord/fields/100/ (the
// primary key carrying a later field), its partitions under
// root-coord/partitions/100/ (101 Created, 102 Dropping, 103 a tombstone).
// It returns the fields' values in key order.
func (e *env) splitFields() [][]byte {
	e.t.Helper()
	key := e.meta(models.CollectionInfoKey(1, 100))
	m, err := wire.Parse(e.sample.KVs[key])
	if err != nil {
		e.t.Fatal(err)
	}
	if err := m.EditMessages(2, func(s *wire.Message) error { s.SetAll(4, nil); return nil }); err != nil {
		e.t.Fatal(err)
	}
	e.put(key, m.Bytes())
	var fields [][]byte
	for _, f := range []*schemapb.FieldSchema{
		{FieldID: 100, Name: "id", IsPrimaryKey: true, DataType: schemapb.DataType_Int64},
		{FieldID: 101, Name: "vector", DataType: schemapb.DataType_FloatVector},
	} {
		b, err := proto.Marshal(f)
		if err != nil {
			e.t.Fatal(err)
		}
		if f.FieldID == 100 {
			b = append(b, laterField...)
		}
		fields = append(fields, b)
		e.put(e.meta(models.FieldPrefixOf(100)+strconv.FormatInt(f.FieldID, 10)), b)
	}
	e.put(e.meta(models.PartitionPrefixOf(100)+"101"), sample.Partition(100, 101, "_default", 1))
	e.put(e.meta(models.PartitionPrefixOf(100)+"102"), append(sample.Partition(100, 102, "gone", 1), (&wire.Builder{}).Varint(5, 2).Build()...))
	e.put(e.meta(models.PartitionPrefixOf(100)+"103"), models.CollectionTombstone)
	return fields
}

// unregister deletes vchannel i's registration (and its schema keys with
// schemas): what `show vchannel-health` flags NOT_REGISTERED.
func (e *env) unregister(i int, schemas bool) (v, metaKey, schemaKey string) {
	e.t.Helper()
	v = e.sample.VChannels[i]
	p := models.PChannelOf(v)
	metaKey = e.meta(models.VChannelMetaKey(p, v))
	e.del(metaKey)
	if schemas {
		for k := range e.sample.KVs {
			if strings.HasPrefix(k, e.meta(models.VChannelSchemaPrefix(p, v))) {
				e.del(k)
			}
		}
	}
	return v, metaKey, e.meta(models.VChannelSchemaKey(p, v, 0))
}

// consumeTick is pchannel p's consume checkpoint time tick as seeded.
func (e *env) consumeTick(p string) uint64 {
	e.t.Helper()
	cp, err := models.DecodeWALCheckpoint(e.sample.KVs[e.meta(models.ConsumeCheckpointKey(p))])
	if err != nil {
		e.t.Fatal(err)
	}
	return cp.TimeTick
}

// createdKeys are the keys a plan's table creates, in order.
func createdKeys(out string) []string {
	var keys []string
	for _, l := range strings.Split(out, "\n") {
		if k, ok := strings.CutPrefix(l, "create "); ok {
			keys = append(keys, k)
		}
	}
	return keys
}

// The registration and the schema are created from rootcoord: the meta
// (NORMAL, collection 100, its Created partition, the consume checkpoint's
// time tick) and a schema holding the fields of root-coord/fields byte for
// byte; exactly those keys; restore puts everything back.
func TestRepairVChannelRegistration(t *testing.T) {
	e := newEnv(t)
	fields := e.splitFields()
	v, metaKey, schemaKey := e.unregister(0, true)
	before := e.dump()
	out, errs, code := e.repair("repair vchannel-registration --vchannel " + v)
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errs)
	}
	if got := createdKeys(out); strings.Join(got, " ") != schemaKey+" "+metaKey {
		t.Fatalf("dry run creates %v, want %s and %s\n%s", got, schemaKey, metaKey, out)
	}
	mustContain(t, out, "partitions [101]", `schema "books": 2 fields`, "ok  the channel checkpoint is not frozen", "ok  no live component caching vchannel metas")
	e.changed(before)

	out, errs, code = e.repair("repair vchannel-registration --vchannel " + v + " --run")
	if code != 0 {
		t.Fatalf("--run: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before, metaKey, schemaKey)
	after := e.dump()
	m, err := models.DecodeVChannelMeta([]byte(after[metaKey]))
	if err != nil {
		t.Fatal(err)
	}
	want := models.VChannelMeta{VChannel: v, State: models.VChannelNormal, CollectionID: 100, Partitions: []int64{101},
		CheckpointTimeTick: e.consumeTick(models.PChannelOf(v))}
	if m.Describe() != want.Describe() || m.VChannel != v || m.Schemas != 0 {
		t.Fatalf("meta %+v, want %+v", m, want)
	}
	sv, err := wire.Parse([]byte(after[schemaKey]))
	if err != nil {
		t.Fatal(err)
	}
	var s schemapb.CollectionSchema
	if err := proto.Unmarshal(sv.BytesOf(1), &s); err != nil {
		t.Fatal(err)
	}
	sm, _ := wire.Parse(sv.BytesOf(1))
	if sv.Varint(3) != 1 || sv.Has(2) || s.GetName() != "books" || len(s.GetFields()) != 2 || s.GetFields()[1].GetName() != "vector" ||
		string(sm.All(4)[0].Payload) != string(fields[0]) || len(s.GetProperties()) != 1 || s.GetProperties()[0].GetKey() != "collection.ttl.seconds" {
		t.Fatalf("schema %v (state %d)", &s, sv.Varint(3))
	}

	out, errs, code = e.repair("repair vchannel-registration --vchannel " + v)
	if code != 0 || !strings.Contains(out, "changes: none") || !strings.Contains(out, "is registered") {
		t.Fatalf("a registered vchannel: exit %d\n%s%s", code, out, errs)
	}
	e.restoreLast(before)
}

// A vchannel whose schema keys survived gets its registration only.
func TestRepairVChannelRegistrationKeepsSchemas(t *testing.T) {
	e := newEnv(t)
	v, metaKey, _ := e.unregister(1, false)
	before := e.dump()
	out, errs, code := e.repair("repair vchannel-registration --vchannel " + v + " --run")
	if code != 0 {
		t.Fatalf("--run: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before, metaKey)
	e.restoreLast(before)
}

// A channel checkpoint over datacoord's max lag behind its pchannel's
// consume checkpoint (here the instance's own dataCoord.compaction.
// channelMaxCPLag, 60 s, against a 5 minute lag) refuses, naming the
// command that moves it first; so does a pchannel without a consume
// checkpoint; and a live streaming node.
func TestRepairVChannelRegistrationRefusals(t *testing.T) {
	e := newEnv(t)
	v, _, _ := e.unregister(0, true)
	e.put(e.inst.Layout.Root("config/dataCoord/compaction/channelMaxCPLag"), []byte("60"))
	before := e.dump()
	out, errs, code := e.repair("repair vchannel-registration --vchannel " + v + " --run")
	if code != framework.ExitRefused {
		t.Fatalf("frozen checkpoint: exit %d\n%s%s", code, out, errs)
	}
	// The gate's row (its detail wrapped or not: piped, at PipeWidth), up
	// to the key it names under it.
	_, row, _ := strings.Cut(shelltest.Words(out), "REFUSED "+frozenGate+" ")
	row = row[:max(strings.LastIndex(row, " "+e.meta(models.ChannelCPPrefix+v)), 0)]
	if !strings.Contains(row, "over datacoord's max lag 1m0s (config/dataCoord/compaction/channelMaxCPLag)") ||
		!strings.HasSuffix(row, ": repair checkpoint --vchannel "+v+" --set-to pchannel-cp") {
		t.Fatalf("frozen gate row %q\n%s", row, out)
	}
	e.changed(before)

	e.del(e.meta(models.ConsumeCheckpointKey(models.PChannelOf(v))))
	out, errs, code = e.repair("repair vchannel-registration --vchannel " + v + " --run")
	if code != framework.ExitRefused || !strings.Contains(out, "REFUSED  "+consumeCPGate) {
		t.Fatalf("no consume checkpoint: exit %d\n%s%s", code, out, errs)
	}

	e2 := newEnv(t)
	v, _, _ = e2.unregister(0, true)
	e2.live("session/streamingnode-5", "streamingnode")
	before = e2.dump()
	out, errs, code = e2.repair("repair vchannel-registration --vchannel " + v + " --run")
	if code != framework.ExitRefused {
		t.Fatalf("live streaming node: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "REFUSED  no live component caching vchannel metas", "session/streamingnode-5")
	e2.changed(before)
}

// The flags heron refuses, a vchannel of no live collection, and a
// registered one (nothing to repair, no error).
func TestRepairVChannelRegistrationUsage(t *testing.T) {
	e := newEnv(t)
	p0 := e.sample.PChannels[0]
	for line, want := range map[string]string{
		"repair vchannel-registration":                                 "--vchannel",
		"repair vchannel-registration --vchannel nounderscore":         "want a vchannel name",
		"repair vchannel-registration --vchannel " + p0 + "/x_1v0":     "want a vchannel name",
		"repair vchannel-registration --vchannel " + p0 + "_999v0":     "not a vchannel of a live collection",
		"repair vchannel-registration --vchannel " + p0 + "_400v0":     "not a vchannel of a live collection", // dropped (tombstone)
		"repair vchannel-registration --vchannel " + p0 + "_100v0 --x": "--x",
	} {
		out, errs, code := e.repair(line)
		if code != framework.ExitUsage || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d, want usage naming %q\n%s%s", line, code, want, out, errs)
		}
	}
	before := e.dump()
	out, errs, code := e.repair("repair vchannel-registration --vchannel " + e.sample.VChannels[0] + " --run")
	if code != 0 || !strings.Contains(out, "is registered") || strings.Contains(out, "no schema key") {
		t.Fatalf("registered: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before)

	// Registered, but its schemas lost: the repair that creates them is named.
	e.loseSchemas()
	before = e.dump()
	out, errs, code = e.repair("repair vchannel-registration --vchannel " + e.sample.VChannels[0])
	if code != 0 || !strings.Contains(out, "is registered") || !strings.Contains(out, "warning: its registration has no schema key") ||
		!strings.Contains(out, "repair wal-recovery-storage creates it") {
		t.Fatalf("registered without schema: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before)
}

// A saved plan applied after the streaming node registered the vchannel
// again is refused, nothing written.
func TestRepairVChannelRegistrationStalePlan(t *testing.T) {
	e := newEnv(t)
	v, metaKey, _ := e.unregister(0, true)
	plan := filepath.Join(e.dir, "plan.jsonl")
	if out, errs, code := e.repair("repair vchannel-registration --vchannel " + v + " --plan-out " + plan); code != 0 {
		t.Fatalf("--plan-out: exit %d\n%s%s", code, out, errs)
	}
	e.put(metaKey, e.sample.KVs[metaKey])
	e.applyRefused(plan, "REFUSED  the plan is what heron plans now")
}

// A registration whose value does not decode (the tombstone bytes, a
// truncated field) is no registration the streaming node can read: the
// plan says so rather than only "is registered"; heron does not rewrite it.
func TestRepairVChannelRegistrationDoesNotDecode(t *testing.T) {
	e := newEnv(t)
	v := e.sample.VChannels[0]
	metaKey := e.meta(models.VChannelMetaKey(models.PChannelOf(v), v))
	for _, val := range [][]byte{{0xE2, 0x9B, 0xBC}, {0x0a, 0x05, 'a'}} {
		e.put(metaKey, val)
		before := e.dump()
		out, errs, code := e.repair("repair vchannel-registration --vchannel " + v)
		if code != 0 || !strings.Contains(out, "warning: its registration "+metaKey+" does not decode") {
			t.Fatalf("registration %x: exit %d\n%s%s", val, code, out, errs)
		}
		e.changed(before)
	}
}

// A channel checkpoint that does not decode is no absent one: the frozen
// gate cannot tell, and refuses, naming it.
func TestRepairVChannelRegistrationChannelCPDoesNotDecode(t *testing.T) {
	e := newEnv(t)
	v, _, _ := e.unregister(0, true)
	cpKey := e.meta(models.ChannelCPKey(v))
	e.put(cpKey, []byte{0x0a, 0x05, 'a'})
	before := e.dump()
	out, errs, code := e.repair("repair vchannel-registration --vchannel " + v + " --run")
	if code != framework.ExitRefused {
		t.Fatalf("a channel checkpoint that does not decode: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "REFUSED  the channel checkpoint is not frozen", cpKey+" does not decode")
	e.changed(before)
}

// The registration is written last, in a phase of its own: a run
// interrupted between the two keys leaves the vchannel unregistered with
// its schema, and the same command run again creates the registration
// (registered with no schema, it would plan nothing and leave the schema
// the streaming node panics without). Found by the chaos checker (seed 519:
// --max-txn-ops 3 and a SIGKILL after the first transaction).
func TestRepairVChannelRegistrationWritesTheRegistrationLast(t *testing.T) {
	e := newEnv(t)
	v, metaKey, schemaKey := e.unregister(0, true)
	plan := filepath.Join(t.TempDir(), "plan.jsonl")
	if out, errs, code := e.repair("repair vchannel-registration --vchannel " + v + " --plan-out " + plan); code != 0 {
		t.Fatalf("--plan-out: exit %d\n%s%s", code, out, errs)
	}
	var keys []string
	var phases []int
	if _, err := apply.VerifyBackup(plan, false, func(en apply.Entry) error {
		keys, phases = append(keys, en.Key), append(phases, en.Phase)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(keys, " ") != schemaKey+" "+metaKey || len(phases) != 2 || phases[0] >= phases[1] {
		t.Fatalf("the plan writes %v in phases %v, want the schema %s, then the registration %s in a later phase", keys, phases, schemaKey, metaKey)
	}

	// What an interruption after the first transaction leaves: the schema.
	before := e.dump()
	if out, errs, code := e.repair("repair vchannel-registration --vchannel " + v + " --run"); code != 0 {
		t.Fatalf("--run: exit %d\n%s%s", code, out, errs)
	}
	after := e.dump()
	e.restoreLast(before)
	e.put(schemaKey, []byte(after[schemaKey]))
	out, errs, code := e.repair("repair vchannel-registration --vchannel " + v + " --run")
	if code != 0 {
		t.Fatalf("the re-run: exit %d\n%s%s", code, out, errs)
	}
	if got := e.dump(); got[metaKey] != after[metaKey] || got[schemaKey] != after[schemaKey] {
		t.Fatalf("the re-run after an interruption does not give an uninterrupted run's keys:\n%s", out)
	}
}

// A run stopped between its two keys prints, in its STOPPED block, the
// command that completes it; run exactly as printed, it writes the rest
// (it carried no --run: found by the chaos checker, seed 78, a NOSPACE
// between the schema and the registration).
func TestRepairVChannelRegistrationStoppedRunCompletesAsPrinted(t *testing.T) {
	e := newEnv(t)
	v, metaKey, schemaKey := e.unregister(0, true)
	e.tune = func(o *apply.Options) {
		o.AfterTxn = func(n int) error {
			if n == 1 {
				return errors.New("simulated crash")
			}
			return nil
		}
	}
	out, errs, code := e.repair("repair vchannel-registration --vchannel " + v + " --run")
	e.tune = nil
	if code == 0 {
		t.Fatalf("the stopped run exited 0\n%s%s", out, errs)
	}
	var complete string
	for _, l := range strings.Split(out+errs, "\n") {
		if c, ok := strings.CutPrefix(strings.TrimSpace(l), "to complete it:"); ok {
			complete = strings.TrimSpace(c)
		}
	}
	if complete == "" {
		t.Fatalf("no `to complete it:` line\n%s%s", out, errs)
	}
	if got := e.dump(); got[schemaKey] == "" || got[metaKey] != "" {
		t.Fatalf("the stopped run did not stop between the schema and the registration\n%s%s", out, errs)
	}
	if out, errs, code := e.run(complete); code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", complete, code, out, errs)
	}
	if got := e.dump(); got[metaKey] == "" {
		t.Fatalf("`%s`, run as printed, did not register the vchannel", complete)
	}
}

// The collection is the one Milvus reads: a database-scoped collection-info
// of the id hides the legacy one (loadCollectionFromDefaultDb), so a legacy
// record that lists the vchannel does not make it live when the scoped one
// does not; a scoped one that does not decode is named, and the legacy
// one read.
func TestRepairVChannelRegistrationReadsTheCollectionMilvusReads(t *testing.T) {
	e := newEnv(t)
	v, metaKey, schemaKey := e.unregister(2, true) // movies, legacy layout
	scoped := e.meta(models.CollectionInfoKey(0, 200))
	p2 := e.sample.PChannels[2]
	e.put(scoped, sample.Collection{ID: 200, Name: "movies", VChannels: []string{p2 + "_200v0"}, PChannels: []string{p2},
		Starts: [][]byte{sample.ID(commonpb.WALName_Pulsar, 200).Bytes()}}.Encode())
	before := e.dump()
	out, errs, code := e.repair("repair vchannel-registration --vchannel " + v + " --run")
	if code != framework.ExitUsage || !strings.Contains(errs, "not a vchannel of a live collection") {
		t.Fatalf("a legacy record hidden by a scoped one: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before)

	e.put(scoped, []byte{0x0a, 0x05, 'a'})
	out, errs, code = e.repair("repair vchannel-registration --vchannel " + v)
	if code != 0 || strings.Join(createdKeys(out), " ") != schemaKey+" "+metaKey {
		t.Fatalf("a scoped record that does not decode: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "warning: "+scoped+" does not decode")
}
