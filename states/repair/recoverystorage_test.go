package repair

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/schemapb"
	"google.golang.org/protobuf/proto"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/models/wire"
)

// loseSchemas deletes the schema keys of books' two vchannels (what the
// 2.6.0-rc.1 upgrade left, milvus #43538) and returns the keys the repair
// creates, in key order.
func (e *env) loseSchemas() []string {
	e.t.Helper()
	var want []string
	for _, i := range []int{0, 1} {
		_, _, schemaKey := e.unregister(i, true)
		v := e.sample.VChannels[i]
		metaKey := e.meta(models.VChannelMetaKey(models.PChannelOf(v), v))
		e.put(metaKey, e.sample.KVs[metaKey])
		want = append(want, schemaKey)
	}
	return want
}

// Each NORMAL vchannel meta with no schema gets schema/0 built from
// rootcoord: the schema with root-coord/fields' fields byte for byte and
// root-coord/functions' function, the collection's properties, time tick 0,
// NORMAL. A DROPPED meta, and one holding its schemas inline (named in a
// warning), are left alone. Exactly those keys; restore puts them back.
func TestRepairWALRecoveryStorage(t *testing.T) {
	e := newEnv(t)
	fields := e.splitFields()
	fn, err := proto.Marshal(&schemapb.FunctionSchema{Id: 1, Name: "bm25", Type: schemapb.FunctionType_BM25})
	if err != nil {
		t.Fatal(err)
	}
	e.put(e.meta(models.FunctionPrefixOf(100)+"1"), fn)
	want := e.loseSchemas()
	p2 := e.sample.PChannels[2]
	dropped := (&wire.Builder{}).String(1, p2+"_500v0").Varint(2, uint64(models.VChannelDropped)).Message(3, (&wire.Builder{}).Varint(1, 500).Build()).Build()
	e.put(e.meta(models.VChannelMetaKey(p2, p2+"_500v0")), dropped)
	inline := (&wire.Builder{}).String(1, p2+"_300v1").Varint(2, 1).Message(3, (&wire.Builder{}).Varint(1, 300).Message(3, sample.Schema("logs")).Build()).Build()
	inlineKey := e.meta(models.VChannelMetaKey(p2, p2+"_300v1"))
	e.put(inlineKey, inline)
	// movies' vchannel, after books' lost one on dml_1, with a second
	// schema key: a schema key settles its own vchannel's meta only
	movies := e.sample.VChannels[2]
	schemaKey := e.meta(models.VChannelSchemaPrefix(models.PChannelOf(movies), movies))
	e.put(schemaKey+"999999999999999999", e.sample.KVs[schemaKey+"470817366343680000"])
	before := e.dump()

	out, errs, code := e.repair("repair wal-recovery-storage")
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errs)
	}
	if got := createdKeys(out); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("dry run creates %v, want %v\n%s", got, want, out)
	}
	mustContain(t, out, "2 vchannel metas of 6 without a schema", `schema "books": 2 fields, 0 struct array fields, 1 functions, 1 properties; checkpoint time tick 0, state 1`,
		"ok  "+collectionGate, "warning: "+inlineKey+" holds 1 schemas inline but has no schema key")
	e.changed(before)

	out, errs, code = e.repair("repair wal-recovery-storage --run")
	if code != 0 {
		t.Fatalf("--run: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before, want...)
	after := e.dump()
	for _, k := range want {
		sv, err := wire.Parse([]byte(after[k]))
		if err != nil {
			t.Fatal(err)
		}
		var s schemapb.CollectionSchema
		if err := proto.Unmarshal(sv.BytesOf(1), &s); err != nil {
			t.Fatal(err)
		}
		sm, _ := wire.Parse(sv.BytesOf(1))
		if sv.Varint(3) != 1 || sv.Has(2) || s.GetName() != "books" || len(s.GetFields()) != 2 || string(sm.All(4)[0].Payload) != string(fields[0]) ||
			len(s.GetFunctions()) != 1 || s.GetFunctions()[0].GetName() != "bm25" || len(s.GetProperties()) != 1 {
			t.Fatalf("%s: schema %v (state %d)", k, &s, sv.Varint(3))
		}
	}
	out, errs, code = e.repair("repair wal-recovery-storage")
	if code != 0 || !strings.Contains(out, "changes: none") {
		t.Fatalf("repaired storage repairs again: exit %d\n%s%s", code, out, errs)
	}
	e.restoreLast(before)
}

// A vchannel meta whose collection rootcoord does not hold (none, or a
// tombstone) refuses the whole repair, naming the meta.
func TestRepairWALRecoveryStorageMissingCollection(t *testing.T) {
	e := newEnv(t)
	e.loseSchemas()
	p0, p2 := e.sample.PChannels[0], e.sample.PChannels[2]
	orphan := e.meta(models.VChannelMetaKey(p2, p2+"_777v0"))
	e.put(orphan, sample.VChannelMeta(p2+"_777v0", 777))
	tomb := e.meta(models.VChannelMetaKey(p0, p0+"_400v0"))
	e.put(tomb, sample.VChannelMeta(p0+"_400v0", 400))
	before := e.dump()
	out, errs, code := e.repair("repair wal-recovery-storage --run")
	if code != framework.ExitRefused {
		t.Fatalf("missing collection: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "REFUSED  "+collectionGate, "rootcoord holds no collection 400 of "+p0+"_400v0, collection 777 of "+p2+"_777v0", orphan, tomb)
	e.changed(before)
}

// Nothing lost is nothing to repair; a flag it does not have is a usage
// error; a live streaming node refuses.
func TestRepairWALRecoveryStorageNothingAndUsage(t *testing.T) {
	e := newEnv(t)
	out, errs, code := e.repair("repair wal-recovery-storage --run")
	if code != 0 || !strings.Contains(out, "nothing to repair: 4 vchannel metas, each with a schema") {
		t.Fatalf("intact storage: exit %d\n%s%s", code, out, errs)
	}
	if out, errs, code := e.repair("repair wal-recovery-storage --vchannel x"); code != framework.ExitUsage || !strings.Contains(errs, "--vchannel") {
		t.Fatalf("unknown flag: exit %d\n%s%s", code, out, errs)
	}
	e.loseSchemas()
	e.live("session/streamingnode-5", "streamingnode")
	before := e.dump()
	out, errs, code = e.repair("repair wal-recovery-storage --run")
	if code != framework.ExitRefused || !strings.Contains(out, "REFUSED  no live component caching vchannel metas") {
		t.Fatalf("live streaming node: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before)
}

// A saved plan applied after the collection's fields changed (the schema
// it would write is no longer rootcoord's) is refused, nothing written.
func TestRepairWALRecoveryStorageStalePlan(t *testing.T) {
	e := newEnv(t)
	e.splitFields()
	e.loseSchemas()
	plan := filepath.Join(e.dir, "plan.jsonl")
	if out, errs, code := e.repair("repair wal-recovery-storage --plan-out " + plan); code != 0 {
		t.Fatalf("--plan-out: exit %d\n%s%s", code, out, errs)
	}
	added, err := proto.Marshal(&schemapb.FieldSchema{FieldID: 102, Name: "title", DataType: schemapb.DataType_VarChar})
	if err != nil {
		t.Fatal(err)
	}
	e.put(e.meta(models.FieldPrefixOf(100)+"102"), added)
	e.applyRefused(plan, "REFUSED  the plan is what heron plans now")
}

// A field under rootcoord's prefix that does not decode as a FieldSchema
// (truncated, a bad tag) is never copied into the
// schema written, which the streaming node could not read: the repair
// fails naming the key, nothing written.
func TestRepairWALRecoveryStorageBrokenField(t *testing.T) {
	for name, v := range map[string][]byte{"truncated": {0x0a, 0x05, 'a'}, "field number 0": {0x00, 0x01}, "unterminated varint": {0x08, 0xff}} {
		e := newEnv(t)
		e.splitFields()
		bad := e.meta(models.FieldPrefixOf(100) + "999")
		e.put(bad, v)
		e.loseSchemas()
		before := e.dump()
		out, errs, code := e.repair("repair wal-recovery-storage --run")
		if code == 0 || !strings.Contains(errs, bad) {
			t.Errorf("%s: a field that does not decode: exit %d, want an error naming %s\n%s%s", name, code, bad, out, errs)
		}
		e.changed(before)
	}
}

// A schema key that does not decode is no schema the streaming node can
// read: named in a warning (heron does not rewrite what it cannot read),
// not counted silently as the vchannel's schema.
func TestRepairWALRecoveryStorageSchemaDoesNotDecode(t *testing.T) {
	e := newEnv(t)
	v := e.sample.VChannels[0]
	key := e.meta(models.VChannelSchemaKey(models.PChannelOf(v), v, 0))
	e.put(key, []byte{0x0a, 0x05, 'a'})
	before := e.dump()
	out, errs, code := e.repair("repair wal-recovery-storage --run")
	if code != 0 || !strings.Contains(out, "warning: ") || !strings.Contains(out, key+" does not decode") {
		t.Fatalf("a schema that does not decode: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before)
}

// A vchannel name that extends another with a byte below '/' sorts between
// the other's meta and its schema keys: the schema still settles its own
// meta (none is planned), and the extended one, holding its schema inline,
// is named.
func TestRepairWALRecoveryStorageNameThatExtendsAnother(t *testing.T) {
	e := newEnv(t)
	movies := e.sample.VChannels[2]
	p := models.PChannelOf(movies)
	old := movies + "-old"
	inline := (&wire.Builder{}).String(1, old).Varint(2, 1).Message(3, (&wire.Builder{}).Varint(1, 101).Message(3, sample.Schema("movies")).Build()).Build()
	oldKey := e.meta(models.VChannelMetaKey(p, old))
	e.put(oldKey, inline)
	before := e.dump()
	out, errs, code := e.repair("repair wal-recovery-storage --run")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "nothing to repair: 5 vchannel metas, each with a schema", "warning: "+oldKey+" holds 1 schemas inline but has no schema key")
	e.changed(before)
}
