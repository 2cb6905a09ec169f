package reset

import (
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/gates"
)

// session is a session value as Milvus writes it (sessionutil.Session
// marshalled; Version is the release's semver), without a lease: a stopped
// component's key that has not expired yet reads the same.
func (e *env) session(key, version string) {
	e.put(e.meta(models.SessionPrefix+key), []byte(`{"ServerID":9,"ServerName":"mixcoord","Address":"10.0.0.9:19530","Exclusive":true,"Stopping":false,"TriggerKill":true,"Version":"`+version+`","IndexEngineVersion":{},"ScalarIndexEngineVersion":{}}`))
}

// Issue 28 §4: on Milvus 3.x a Kafka target's earliest is written as
// OffsetBeginning (-2), as Milvus's own online switch writes it; on 2.6 as
// offset 0 (before 2.6.19 a negative id does not decode); the plan says
// which form and why, and --milvus-version decides when it is given.
func TestKafkaEarliestByRelease(t *testing.T) {
	for _, c := range []struct {
		session, flag, human, bytesHex, text, note string
	}{
		{"3.0.0", "", "-2", "feffffffffffffff", "-2", "because the instance runs Milvus 3.0.0 (sessions)"},
		{"2.6.5", "", "0", "0000000000000000", "0", "Milvus before 2.6.19 cannot read the negative OffsetBeginning); the instance runs Milvus 2.6.5 (sessions)"},
		{"2.6.5", "3.0.1", "-2", "feffffffffffffff", "-2", "3.0.1 (--milvus-version)"},
		{"", "", "0", "0000000000000000", "0", "the instance's Milvus release is unknown (no session names a version: pass --milvus-version)"},
	} {
		e := newEnv(t, commonpb.WALName_Pulsar)
		if c.session != "" {
			e.session("mixcoord", c.session)
		}
		args := "--target-wal kafka"
		if c.flag != "" {
			args += " --milvus-version " + c.flag
		}
		s := planJSON(t, mustOut(t, e, args+" --format json"))
		if s.Earliest.Human != c.human || s.Earliest.BytesHex != c.bytesHex || s.Earliest.Text != c.text {
			t.Fatalf("%+v: earliest %+v", c, s.Earliest)
		}
		mustContain(t, strings.Join(s.Warnings, "\n"), c.note)
		if c.human != "-2" {
			continue
		}
		runOK(t, e, args)
		after := e.dump()
		cp, err := models.DecodeWALCheckpoint([]byte(after[e.meta(models.ConsumeCheckpointKey(e.pc(0)))]))
		if err != nil || cp.WAL != commonpb.WALName_Kafka || cp.MessageID != "-2" {
			t.Fatalf("consume checkpoint %+v %v", cp, err)
		}
		for k, v := range after {
			if !strings.Contains(k, models.ChannelCPPrefix) {
				continue
			}
			pos, err := models.DecodePosition([]byte(v))
			if err != nil {
				t.Fatal(err)
			}
			if !models.IsDroppedChannelCP(pos) && hex.EncodeToString(pos.GetMsgID()) != c.bytesHex {
				t.Fatalf("%s: msgID %x", k, pos.GetMsgID())
			}
		}
	}
}

// On 3.x an offset 0 already written (a reset made for 2.6) is not at the
// target: it moves to -2 as well; on 2.6 it stays.
func TestKafkaOffsetZeroMovesOn3x(t *testing.T) {
	for _, c := range []struct {
		version string
		moves   bool
	}{{"3.0.0", true}, {"2.6.23", false}} {
		e := newEnv(t, commonpb.WALName_Kafka)
		e.session("mixcoord", c.version)
		runOK(t, e, "--target-wal kafka --milvus-version 2.6.23")
		s := planJSON(t, mustOut(t, e, "--target-wal kafka --format json"))
		cc := kindCount(s, KindChannelCP)
		if moved := cc != nil && cc.Keys > 0; moved != c.moves {
			t.Fatalf("%s: channel-cps at offset 0 rewritten: %+v", c.version, cc)
		}
	}
}

// Issue 28 §4: a consume checkpoint whose unknown field holds what looks
// like a message id (master's data_checkpoint, a WALConsumeCheckpoint, at a
// number heron could not verify), or a master recovery-control record,
// refuses the plan by name; nothing is written.
func TestUnknownIDFieldAndRecoveryControlRefuse(t *testing.T) {
	dataCheckpoint, _ := hex.DecodeString("4a0b0a060a027278100310c103") // field 9: {message_id {"rx", kafka}, time_tick 449}
	e := newEnv(t, commonpb.WALName_Kafka)
	cpKey := e.meta(models.ConsumeCheckpointKey(e.pc(0)))
	e.put(cpKey, sample.Checkpoint{ID: sample.ID(commonpb.WALName_Kafka, 5), TimeTick: 3, RecoveryMagic: 1, Extra: dataCheckpoint}.Encode())
	msg := refusedUnchanged(t, e, "--target-wal woodpecker --run")
	mustContain(t, msg, gates.CheckpointLayoutName, cpKey+` field 9 (a kafka id "rx")`, "data_checkpoint", "does not guess")

	e = newEnv(t, commonpb.WALName_Kafka)
	rc := e.meta(models.WALPrefix + e.pc(1) + "/recovery-control")
	e.put(rc, []byte{0x08, 0x01})
	msg = refusedUnchanged(t, e, "--target-wal pulsar")
	mustContain(t, msg, gates.CheckpointLayoutName, rc, "interrupted online switch")
}

// Issue 28 §1, end to end: the instance's etcd says tenant milvus-t,
// namespace ns1 (as milvus.yaml may), its sessions say 2.6.3, and the old
// data sits under public/default, where 2.6.3 really wrote it: the reset
// refuses, naming that topic and why; nothing is written.
func TestPulsarPublicDefaultOnEarly26(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Kafka)
	e.put(e.inst.Layout.Root("config/pulsar.tenant"), []byte("milvus-t"))
	e.put(e.inst.Layout.Root("config/pulsar.namespace"), []byte("ns1"))
	e.session("streamingnode-4", "2.6.3")
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/partitions"):
			_, _ = w.Write([]byte(`{"partitions":0,"deleted":false}`))
		case r.URL.Path == "/admin/v2/persistent/public/default/"+e.pc(1)+"/internalStats":
			_, _ = w.Write([]byte(`{"entriesAddedCounter":9,"numberOfEntries":9,"totalSize":640,"currentLedgerEntries":9,"lastConfirmedEntry":"31:8","state":"LedgerOpened","ledgers":[{"ledgerId":31,"entries":0,"size":0,"offloaded":false,"underReplicated":false}],"cursors":{}}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer s.Close()
	msg := refusedUnchanged(t, e, "--target-wal pulsar --pulsar-admin "+s.URL+" --run")
	mustContain(t, msg, "persistent://milvus-t/ns1/"+e.pc(1)+": absent; persistent://public/default/"+e.pc(1)+": not empty (9 entries)",
		"milvus-io/milvus#46748", "2.6.3 (sessions)")
	// 2.6.9 and later write under milvus-t/ns1 only: public/default is not theirs.
	out := mustOut(t, e, "--target-wal pulsar --milvus-version 2.6.9 --pulsar-admin "+s.URL+" --format json")
	if g := findGate(planJSON(t, out), gates.TargetName); g == nil || !g.OK || strings.Contains(g.Detail, "public/default") {
		t.Fatalf("2.6.9: %+v", g)
	}
}
