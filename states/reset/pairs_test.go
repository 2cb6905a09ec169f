package reset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/wire"
	"github.com/heron-shell/heron/tests/etcdtest"
)

var allWALs = []commonpb.WALName{commonpb.WALName_Pulsar, commonpb.WALName_Kafka, commonpb.WALName_RocksMQ, commonpb.WALName_WoodPecker}

// expectedChanges lists the keys of the sample a whole-instance reset must
// change, by the test's own reading of the sample (not the planner's).
func expectedChanges(t *testing.T, e *env) (rewrites, deletes []string) {
	for _, key := range e.sample.Keys() {
		rel, ok := e.inst.Layout.Rel(key)
		if !ok {
			continue
		}
		v := e.sample.KVs[key]
		k := models.Classify(rel)
		switch k.Kind {
		case models.KindQueryTarget:
			deletes = append(deletes, key)
		case models.KindChannelCP:
			pos, err := models.DecodePosition(v)
			if err != nil {
				t.Fatal(err)
			}
			if !models.IsDroppedChannelCP(pos) {
				rewrites = append(rewrites, key)
			}
		case models.KindCollectionInfo, models.KindLegacyCollection, models.KindSnapshotCollection:
			if !models.IsTombstone(v) {
				rewrites = append(rewrites, key)
			}
		case models.KindSegment, models.KindConsumeCheckpoint:
			rewrites = append(rewrites, key)
		}
	}
	// The sample has no mq.type override: the run creates one (issue 8 item 3).
	rewrites = append(rewrites, e.inst.Layout.Root(models.MQTypeConfigKey))
	return rewrites, deletes
}

// sameExcept fails unless a and b hold the same fields, byte for byte and in
// the same order, once the fields in skip are left out.
func sameExcept(t *testing.T, what string, a, b []byte, skip ...protowire.Number) (*wire.Message, *wire.Message) {
	t.Helper()
	am, err := wire.Parse(a)
	if err != nil {
		t.Fatalf("%s: old value: %v", what, err)
	}
	bm, err := wire.Parse(b)
	if err != nil {
		t.Fatalf("%s: new value: %v", what, err)
	}
	keep := func(m *wire.Message) [][]byte {
		var out [][]byte
		for _, f := range m.Fields {
			skipped := false
			for _, s := range skip {
				skipped = skipped || f.Num == s
			}
			if !skipped {
				out = append(out, f.Raw)
			}
		}
		return out
	}
	ka, kb := keep(am), keep(bm)
	if len(ka) != len(kb) {
		t.Fatalf("%s: %d untouched fields before, %d after", what, len(ka), len(kb))
	}
	for i := range ka {
		if !bytes.Equal(ka[i], kb[i]) {
			t.Fatalf("%s: untouched field %d changed: %x -> %x", what, i, ka[i], kb[i])
		}
	}
	return am, bm
}

// checkPosition checks a rewritten MsgPosition: earliest id, WAL_name,
// the same timestamp and channel, every other field byte-identical.
func checkPosition(t *testing.T, what string, old, new []byte, target msgid.ID) {
	t.Helper()
	om, nm := sameExcept(t, what, old, new, 2, 5)
	if !bytes.Equal(nm.BytesOf(2), target.Bytes()) || nm.Varint(5) != uint64(target.WAL()) {
		t.Fatalf("%s: msgID %x WAL_name %d, want %x %d", what, nm.BytesOf(2), nm.Varint(5), target.Bytes(), target.WAL())
	}
	if om.Varint(4) != nm.Varint(4) || om.String(1) != nm.String(1) {
		t.Fatalf("%s: timestamp or channel changed", what)
	}
	pos, err := models.DecodePosition(new)
	if err != nil {
		t.Fatal(err)
	}
	codec, _ := msgid.For(pos.GetWALName())
	id, err := codec.DecodeBytes(pos.GetMsgID())
	if err != nil || !id.IsEarliest() {
		t.Fatalf("%s: %x does not decode as %s earliest: %v", what, pos.GetMsgID(), pos.GetWALName(), err)
	}
}

// checkRewritten checks one rewritten value of the sample against the target.
func checkRewritten(t *testing.T, e *env, key string, old, new []byte, target msgid.ID) {
	t.Helper()
	if key == e.inst.Layout.Root(models.MQTypeConfigKey) {
		if _, existed := e.sample.KVs[key]; existed || string(new) != msgid.Name(target.WAL()) {
			t.Fatalf("%s: created %q (existed before: %v), want %q", key, new, existed, msgid.Name(target.WAL()))
		}
		return
	}
	rel, _ := e.inst.Layout.Rel(key)
	switch k := models.Classify(rel); k.Kind {
	case models.KindConsumeCheckpoint:
		_, nm := sameExcept(t, key, old, new, 1)
		om, _ := wire.Parse(old)
		oid, _ := om.Sub(1)
		nid, _ := nm.Sub(1)
		sameExcept(t, key+" message_id", oid.Bytes(), nid.Bytes(), 1, 2)
		if nid.String(1) != target.Text() || nid.Varint(2) != uint64(target.WAL()) {
			t.Fatalf("%s: message id %q WAL %d", key, nid.String(1), nid.Varint(2))
		}
		cp, err := models.DecodeWALCheckpoint(new)
		if err != nil || !cp.InWAL(target) {
			t.Fatalf("%s: %+v %v", key, cp, err)
		}
		codec, _ := msgid.For(cp.WAL)
		if id, err := codec.DecodeText(cp.MessageID); err != nil || !id.IsEarliest() {
			t.Fatalf("%s: %q not earliest", key, cp.MessageID)
		}
	case models.KindChannelCP:
		checkPosition(t, key, old, new, target)
	case models.KindSegment:
		om, nm := sameExcept(t, key, old, new, 9, 10)
		for _, n := range []protowire.Number{9, 10} {
			of, ok1 := om.Get(n)
			nf, ok2 := nm.Get(n)
			if ok1 != ok2 {
				t.Fatalf("%s: field %d presence changed", key, n)
			}
			if ok1 {
				checkPosition(t, fmt.Sprintf("%s field %d", key, n), of.Payload, nf.Payload, target)
			}
		}
	case models.KindCollectionInfo, models.KindLegacyCollection, models.KindSnapshotCollection:
		om, nm := sameExcept(t, key, old, new, 11)
		os, ns := om.All(11), nm.All(11)
		if len(os) != len(ns) || len(os) == 0 {
			t.Fatalf("%s: start_positions %d -> %d", key, len(os), len(ns))
		}
		for i := range os {
			okd, nkd := sameExcept(t, key+" start_positions", os[i].Payload, ns[i].Payload, 2)
			if okd.String(1) != nkd.String(1) || !bytes.Equal(nkd.BytesOf(2), target.Bytes()) {
				t.Fatalf("%s: start position %q = %x", key, nkd.String(1), nkd.BytesOf(2))
			}
		}
	default:
		t.Fatalf("%s changed but is not a position key", key)
	}
}

// TestEveryWALPair resets the sample from every WAL to every WAL (the same
// WAL included: a reset to earliest) in one etcd, one root per pair, and
// checks every key of the whole keyspace.
func TestEveryWALPair(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	for _, src := range allWALs {
		for _, dst := range allWALs {
			name := msgid.Name(src) + "-to-" + msgid.Name(dst)
			t.Run(name, func(t *testing.T) {
				e := seedEnv(t, cli, ep, "pair-"+name, src)
				codec, _ := msgid.For(dst)
				target := codec.Earliest()
				before := e.dump()
				out, errs, code := e.reset("--target-wal " + msgid.Name(dst) + " --run --format json")
				if code != 0 {
					t.Fatalf("exit %d\n%s\n%s", code, out, errs)
				}
				var res RunResult
				if err := json.Unmarshal([]byte(out), &res); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				if !res.Verify.OK || res.Applied == nil || res.Applied.Backup == "" {
					t.Fatalf("run %+v", res)
				}
				after := e.dump()
				rewrites, deletes := expectedChanges(t, e)
				want := append(append([]string{}, rewrites...), deletes...)
				sort.Strings(want)
				if got := diffKeys(before, after); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("changed keys:\n%v\nwant:\n%v", got, want)
				}
				for _, k := range deletes {
					if _, ok := after[k]; ok {
						t.Fatalf("%s not deleted", k)
					}
				}
				for _, k := range rewrites {
					checkRewritten(t, e, k, []byte(before[k]), []byte(after[k]), target)
				}
				if res.Applied.Keys != int64(len(want)) || res.Plan.TotalKeys != int64(len(want)) {
					t.Fatalf("applied %d keys, plan %d, want %d", res.Applied.Keys, res.Plan.TotalKeys, len(want))
				}
				// A second run plans nothing and writes nothing.
				r0 := e.rev()
				out, errs, code = e.reset("--target-wal " + msgid.Name(dst) + " --run --format json")
				if code != 0 || e.rev() != r0 {
					t.Fatalf("second run: exit %d, revision %d -> %d\n%s\n%s", code, r0, e.rev(), out, errs)
				}
				var again RunResult
				if err := json.Unmarshal([]byte(out), &again); err != nil || again.Applied != nil || again.Plan.TotalKeys != 0 || !again.Verify.OK {
					t.Fatalf("second run: %v\n%s", err, out)
				}
			})
		}
	}
}
