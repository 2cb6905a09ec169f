package repair

import (
	"strings"
	"testing"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
)

// A streaming coordinator that registers after the question, while the
// backup is published, stops the repair at its transaction, whose guard
// compare fails (exit 1): the error names the session and its role, and
// nothing is written.
func TestRepairStopsWhenAComponentRegistersMidRun(t *testing.T) {
	e := newEnv(t)
	e.stuckTask()
	before := e.dump()
	session := e.meta("session/mixcoord")
	e.tune = func(o *apply.Options) {
		o.AfterBackup = func(string) error {
			e.live("session/mixcoord", "mixcoord")
			return nil
		}
	}
	out, errs, code := e.repair("repair wal-broadcast-task --id 7 --run --yes")
	if code != framework.ExitFailed {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out+errs, session, "mixcoord", "nothing was written")
	after := e.dump()
	delete(after, session)
	for k, v := range before {
		if after[k] != v {
			t.Fatalf("%s changed", k)
		}
	}
	if len(after) != len(before) {
		t.Fatalf("keys added: %d -> %d", len(before), len(after))
	}
}

// A repair's JSON plan carries its changes and its cache gate, so that a
// script reads what it will write without parsing the table.
func TestRepairJSONPlan(t *testing.T) {
	e := newEnv(t)
	key, _ := e.stuckTask()
	out, errs, code := e.repair("repair wal-broadcast-task --id 7 --format json")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, `"command": "repair wal-broadcast-task"`, `"key": "`+key+`"`, `"action": "put"`,
		`"name": "`+"no live component caching "+models.BroadcastTaskCache.What+`"`)
	if strings.Count(out, "\n{") > 0 {
		t.Fatalf("more than one JSON document:\n%s", out)
	}
}

// A run with nothing to write still says what the plan warned of (a meta
// that does not decode, left alone): the outcome is all --run prints.
func TestRepairNothingToWriteKeepsWarnings(t *testing.T) {
	e := newEnv(t)
	v := e.sample.VChannels[0]
	metaKey := e.meta(models.VChannelMetaKey(models.PChannelOf(v), v))
	e.put(metaKey, []byte{0xE2, 0x9B, 0xBC})
	before := e.dump()
	for _, line := range []string{"repair wal-recovery-storage --run", "repair vchannel-registration --vchannel " + v + " --run"} {
		out, errs, code := e.repair(line)
		if code != 0 || !strings.Contains(out, "nothing to repair") || !strings.Contains(out, "warning: ") || !strings.Contains(out, metaKey) {
			t.Fatalf("%s: exit %d\n%s%s", line, code, out, errs)
		}
	}
	e.changed(before)
}
