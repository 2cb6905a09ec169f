package reset

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/tests/sampletest"
)

// emptyWoodpeckerEarliest is woodpecker's {0,0} as Milvus's own online
// switch writes it: zero bytes, "" as text (tests/golden/testdata/msgid.json
// woodpecker/earliest).
type emptyWoodpeckerEarliest struct{ msgid.WoodpeckerID }

func (emptyWoodpeckerEarliest) Bytes() []byte { return nil }
func (emptyWoodpeckerEarliest) Text() string  { return "" }

const explicitEarliestHex = "08001000" // tests/golden/testdata/wp_earliest.json form "explicit"

// toEmptyForm rewrites every position of the instance (consume checkpoints,
// channel-cps, segment positions, collection start positions in both layouts
// and snapshots) to woodpecker's empty earliest form; dropped markers stay.
func (e *env) toEmptyForm() (keys []string) {
	e.t.Helper()
	id := emptyWoodpeckerEarliest{}
	for key, value := range e.dump() {
		rel, ok := e.inst.Layout.Rel(key)
		if !ok {
			continue
		}
		v, nv := []byte(value), []byte(nil)
		var err error
		switch k := models.Classify(rel); k.Kind {
		case models.KindConsumeCheckpoint:
			nv, err = models.RewriteWALCheckpoint(v, id)
		case models.KindChannelCP:
			pos, derr := models.DecodePosition(v)
			if derr != nil || models.IsDroppedChannelCP(pos) {
				continue
			}
			nv, err = models.RewritePosition(v, id)
		case models.KindSegment:
			nv, _, err = sampletest.RewriteSegmentPositions(v, id)
		case models.KindCollectionInfo, models.KindLegacyCollection, models.KindSnapshotCollection:
			if models.IsTombstone(v) {
				continue
			}
			nv, _, err = sampletest.RewriteStartPositions(v, func(string) bool { return true }, id)
		default:
			continue
		}
		if err != nil {
			e.t.Fatalf("%s: %v", key, err)
		}
		e.put(key, nv)
		keys = append(keys, key)
	}
	return keys
}

// Issue 13 item 4: every position heron writes for woodpecker is {0,0} with
// explicit zero fields, and the empty form Milvus's own switch writes is
// read as "at the target" but planned as a rewrite to the explicit one.
func TestWoodpeckerExplicitEarliest(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	if got := hex.EncodeToString(msgid.WoodpeckerID{}.Bytes()); got != explicitEarliestHex {
		t.Fatalf("woodpecker earliest %s", got)
	}
	// Milvus's online switch to woodpecker left every position in the empty form.
	emptied := e.toEmptyForm()
	if len(emptied) < 10 {
		t.Fatalf("only %d positions emptied", len(emptied))
	}
	// The census reads the empty form as woodpecker: a scoped run is not a split state.
	s := planJSON(t, mustOut(t, e, "--target-wal woodpecker --pchannel "+e.pc(0)+" --format json"))
	if s.Refused {
		t.Fatalf("scoped plan over the empty form refused: %+v", s.Gates)
	}
	if s.TotalKeys == 0 {
		t.Fatal("the empty form of pchannel 0 is not planned as a rewrite")
	}
	before := e.dump()
	res := runOK(t, e, "--target-wal woodpecker")
	var deleted int64
	for _, d := range res.Plan.Deletions {
		deleted += d.Count
	}
	// The emptied positions, the mq.type override it creates, the query targets it deletes.
	if res.Plan.TotalKeys != int64(len(emptied))+1+deleted {
		t.Fatalf("planned %d keys, want the %d emptied positions, mq.type and %d deletions", res.Plan.TotalKeys, len(emptied), deleted)
	}
	after := e.dump()
	for _, key := range emptied {
		if after[key] == before[key] {
			t.Fatalf("%s not rewritten", key)
		}
		checkExplicit(t, e, key, []byte(after[key]))
	}
	dropped := e.meta(models.ChannelCPKey(e.pc(0) + "_400v0"))
	if after[dropped] != before[dropped] || after[dropped] == "" {
		t.Fatalf("dropped marker %s changed", dropped)
	}
	// A second run has nothing to do: the explicit form is at the target.
	r0 := e.rev()
	out, errs, code := e.reset("--target-wal woodpecker --run --format json")
	if again := runJSON(t, out); code != 0 || e.rev() != r0 || again.Plan.TotalKeys != 0 {
		t.Fatalf("second run: exit %d\n%s\n%s", code, out, errs)
	}
}

// checkExplicit checks that every woodpecker position of a value is the explicit {0,0}.
func checkExplicit(t *testing.T, e *env, key string, v []byte) {
	t.Helper()
	rel, _ := e.inst.Layout.Rel(key)
	explicit, _ := hex.DecodeString(explicitEarliestHex)
	switch models.Classify(rel).Kind {
	case models.KindConsumeCheckpoint:
		cp, err := models.DecodeWALCheckpoint(v)
		if err != nil || cp.WAL != commonpb.WALName_WoodPecker || cp.MessageID != "CAAQAA==" {
			t.Fatalf("%s: %+v %v", key, cp, err)
		}
	case models.KindChannelCP:
		pos, err := models.DecodePosition(v)
		if err != nil || !bytes.Equal(pos.GetMsgID(), explicit) || pos.GetWALName() != commonpb.WALName_WoodPecker {
			t.Fatalf("%s: %v %v", key, pos, err)
		}
	case models.KindSegment:
		s, err := models.DecodeSegmentInfo(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, pos := range [...]interface{ GetMsgID() []byte }{s.StartPosition, s.DMLPosition} {
			if pos != nil && !bytes.Equal(pos.GetMsgID(), explicit) {
				t.Fatalf("%s: msgID %x", key, pos.GetMsgID())
			}
		}
	default:
		c, err := models.DecodeCollectionInfo(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, sp := range c.StartPositions {
			if !bytes.Equal(sp.Data, explicit) {
				t.Fatalf("%s: start position %s = %x", key, sp.Key, sp.Data)
			}
		}
	}
}

// After a run, only the explicit form counts as done: a position put back
// in the empty form is planned again, which fails the kit's verify (it
// re-plans and must find nothing).
func TestEmptyWoodpeckerEarliestPlannedAfterRun(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Kafka)
	runOK(t, e, "--target-wal woodpecker")
	if s := dryPlan(t, e.inst, &Params{TargetWAL: "woodpecker"}); s.TotalKeys != 0 {
		t.Fatalf("a second plan after the run: %d keys", s.TotalKeys)
	}
	cpKey := e.meta(models.ConsumeCheckpointKey(e.pc(1)))
	channelCP := ""
	for key := range e.dump() {
		if strings.HasPrefix(key, e.meta(models.ChannelCPPrefix+e.pc(0))) && !strings.HasSuffix(key, "_400v0") {
			channelCP = key
		}
	}
	for _, key := range []string{cpKey, channelCP} {
		v := []byte(e.dump()[key])
		var empty []byte
		var err error
		if key == cpKey {
			empty, err = models.RewriteWALCheckpoint(v, emptyWoodpeckerEarliest{})
		} else {
			empty, err = models.RewritePosition(v, emptyWoodpeckerEarliest{})
		}
		if err != nil {
			t.Fatal(err)
		}
		e.put(key, empty)
		s := dryPlan(t, e.inst, &Params{TargetWAL: "woodpecker"})
		var keys []string
		for _, k := range s.Rewrites {
			for _, ex := range k.Examples {
				keys = append(keys, ex.Key)
			}
		}
		if s.TotalKeys != 1 || !strings.Contains(strings.Join(keys, "\n"), key) {
			t.Fatalf("%s in the empty form: planned %d keys %v", key, s.TotalKeys, keys)
		}
		e.put(key, v)
	}
}

// The empty form's example in a plan says which form is rewritten.
func TestEmptyFormExample(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	e.toEmptyForm()
	s := planJSON(t, mustOut(t, e, "--target-wal woodpecker --format json"))
	var examples []string
	for _, k := range s.Rewrites {
		for _, ex := range k.Examples {
			examples = append(examples, k.Kind+": "+ex.Before+" -> "+ex.After)
		}
	}
	mustContain(t, strings.Join(examples, "\n"), "woodpecker 0:0 (empty form) -> woodpecker 0:0 (explicit zero fields)")
}
