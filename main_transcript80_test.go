package main

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/configs"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/ptytest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// copyable is a line that may be wider than the terminal: a command or a
// key on a line of its own, whole (a copy from the terminal pastes it as
// one line).
var copyable = regexp.MustCompile("^ *(`?(restore|reset|apply|show|connect|backups?|heron) [^ ].* --[a-z-]+.*`?|[^ ]+)$")

// assertFits80 checks every line of a transcript: at most 80 columns,
// unless it is a command or a key alone on its line.
func assertFits80(t *testing.T, what, transcript string) {
	t.Helper()
	for _, l := range strings.Split(transcript, "\n") {
		l = ansi.ReplaceAllString(strings.TrimRight(l, "\r"), "")
		if strings.Contains(l, "> ") && strings.Contains(l, "Milvus(by-dev)") || strings.HasPrefix(l, "Offline > ") {
			continue // the prompt and the typed line
		}
		if utf8.RuneCountInString(l) > 80 && !copyable.MatchString(l) {
			t.Errorf("%s: line wider than 80 columns that is not a command or a key on its own: %q", what, l)
		}
	}
}

// since is the transcript after the last occurrence of mark.
func since(out, mark string) string {
	if i := strings.LastIndex(out, mark); i >= 0 {
		return ansi.ReplaceAllString(strings.ReplaceAll(out[i:], "\r", ""), "")
	}
	return ""
}

// Issue 27, at 80 columns (kubectl exec): a refusal's detail wraps at spaces
// with its command whole on a line of its own, the error line names the gate
// and points above, a birdwatcher write verb gets the safe path; after a run
// that stopped before its consume checkpoints (a killed run), connect says
// the instance is split and show checkpoint names the command that
// completes it and the restore that rolls it back, each on its own line;
// backups lists the backup; no line is wider than the terminal except a
// command or a key on a line of its own.
func TestOperatorTranscriptAt80Columns(t *testing.T) {
	if testing.Short() {
		t.Skip("pty test")
	}
	const wait = 30 * time.Second
	work := t.TempDir()

	// The demo: the woodpecker refusal.
	demo := exec.Command(os.Args[0])
	demo.Dir = work
	demo.Env = append(os.Environ(), mainChildEnv+"=1", mainChildEnv+"_ARGS=demo", "HERON_HOME="+t.TempDir(), "TERM=xterm")
	tm := ptytest.StartSize(t, demo, 40, 80)
	tm.Expect("Milvus(by-dev) > ", wait)
	tm.Send("reset checkpoint --target-wal woodpecker\r")
	tm.Expect("see what to do above", wait)
	tm.Expect("Milvus(by-dev) > ", wait)
	refusal := since(tm.Output(), "reset checkpoint --target-wal woodpecker\r")
	assert.Regexp(t, "(?m)^ +`reset wal --target woodpecker --run`$", refusal, "the gate's command is whole on a line of its own")
	assert.Regexp(t, "(?m)^what to do, in order:\n  1\\. empty the woodpecker logs with `reset wal --target woodpecker --run`\n  2\\. re-run the same command line$", refusal, "the recipe is a numbered list")
	assert.Regexp(t, `(?m)^error: reset checkpoint refused, nothing was written: woodpecker target is\n  empty; see what to do above$`, refusal, "the error line names the gate and points above")
	assert.NotContains(t, refusal, "--allow-non-empty-target", "no bypass flag on the way out")
	assertFits80(t, "woodpecker refusal", refusal)
	// Issue 38: the gate's text column is 48 columns in; a key (45 columns)
	// or a command (37) that does not fit after it starts at the margin, so
	// that no line of the refusal is wider than the terminal.
	assert.Regexp(t, "(?m)^  by-dev/woodpecker/logs/by-dev-rootcoord-dml_1$", refusal, "a key under the gate starts at the margin, whole")
	for _, l := range strings.Split(refusal, "\n") {
		if l = ansi.ReplaceAllString(l, ""); utf8.RuneCountInString(l) > 80 && !strings.Contains(l, "Milvus(by-dev)") {
			t.Errorf("woodpecker refusal: a line wider than 80 columns: %q", l)
		}
	}

	tm.Send("remove segment --segment 1001\r")
	tm.Expect("heron does not do remove", wait)
	tm.Expect("Milvus(by-dev) > ", wait)
	assertFits80(t, "remove", since(tm.Output(), "remove segment"))
	tm.Send("help --format json\r")
	tm.Expect(`"commands": [`, wait)
	tm.Expect("Milvus(by-dev) > ", wait)
	tm.Send("exit\r")
	tm.Wait(wait)

	// A run that stopped before the consume checkpoints: a reset --run,
	// then the consume checkpoints put back from its backup (the reset
	// writes them last, so a killed run leaves exactly this).
	cli, ep := etcdtest.Start(t)
	shelltest.Seed(t, cli, ep, configs.DefaultRootPath, commonpb.WALName_Pulsar)
	cmd := exec.Command(os.Args[0])
	cmd.Dir = work
	cmd.Env = append(os.Environ(), mainChildEnv+"=1", "HERON_HOME="+t.TempDir(), "TERM=xterm")
	tm = ptytest.StartSize(t, cmd, 40, 80)
	tm.Expect("Offline > ", wait)
	tm.Send("connect --etcd " + ep + " --rootPath by-dev\r")
	tm.Expect("Milvus(by-dev) > ", wait)
	tm.Send("reset checkpoint --target-wal kafka --run --yes\r")
	tm.Expect("verify: ok", wait)
	tm.Expect("Milvus(by-dev) > ", wait)
	listed := apply.ListBackups([]string{work}, "by-dev")
	require.Len(t, listed, 1)
	br, err := apply.OpenBackup(listed[0].Path)
	require.NoError(t, err)
	put := 0
	for {
		e, ok, err := br.Next()
		require.NoError(t, err)
		if !ok {
			break
		}
		if strings.HasSuffix(e.Key, "/consume-checkpoint") {
			_, err := cli.Put(context.Background(), e.Key, string(e.Value))
			require.NoError(t, err)
			put++
		}
	}
	br.Close()
	require.Positive(t, put)

	tm.Send("disconnect\r")
	tm.Expect("Offline > ", wait)
	tm.Send("connect --etcd " + ep + " --rootPath by-dev\r")
	tm.Expect("Milvus(by-dev) > ", wait)
	connect := since(tm.Output(), "connect --etcd")
	assert.Regexp(t, `(?m)^warning: instance is SPLIT: an interrupted reset to kafka\? `, connect, "connect warns")
	assertFits80(t, "connect", connect)

	tm.Send("show checkpoint --pchannels\r")
	tm.Expect("To roll it back", wait)
	tm.Expect("Milvus(by-dev) > ", wait)
	show := since(tm.Output(), "show checkpoint --pchannels")
	assert.Regexp(t, `(?m)^To complete it \(the moved positions name kafka\), run the reset again:\n  reset checkpoint --target-wal kafka --run$`, show)
	assert.Regexp(t, `(?m)^To roll it back \(backup found in \.\):\n  restore --file `+regexp.QuoteMeta(listed[0].Path)+` --run$`, show)
	assert.Regexp(t, `(?m)^dml_0 +pulsar +150:55:0:-1 +2026-11-3\.\.\. +kafka 5, `, show, "the pchannel table keeps what tells a split apart")
	assertFits80(t, "show checkpoint in a split state", show)

	tm.Send("backups\r")
	tm.Expect("newest first:", wait)
	tm.Expect("Milvus(by-dev) > ", wait)
	backups := since(tm.Output(), "backups\r")
	assert.Regexp(t, `(?m)^`+regexp.QuoteMeta(listed[0].Path)+`\n  reset checkpoint --target-wal kafka --run\n  root by-dev, revision \d+, \d+ keys, written `, backups)
	assertFits80(t, "backups", backups)

	tm.Send("exit\r")
	assert.Equal(t, 0, tm.Wait(wait))
}

// Issue 27 item 8: on a terminal with HERON_ETCD set (kubectl run -it
// --env HERON_ETCD=...), heron starts connected and says so.
func TestHeronEtcdConnectsAtStart(t *testing.T) {
	if testing.Short() {
		t.Skip("pty test")
	}
	cli, ep := etcdtest.Start(t)
	shelltest.Seed(t, cli, ep, configs.DefaultRootPath, commonpb.WALName_Pulsar)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), mainChildEnv+"=1", "HERON_HOME="+t.TempDir(), "TERM=xterm", "HERON_ETCD="+ep, "HERON_ROOT_PATH=by-dev")
	tm := ptytest.StartSize(t, cmd, 40, 80)
	const wait = 30 * time.Second
	tm.Expect("HERON_ETCD is set: connect (to "+ep+")", wait)
	tm.Expect("connected to etcd "+ep, wait)
	tm.Expect("Milvus(by-dev) > ", wait)
	tm.Send("exit\r")
	assert.Equal(t, 0, tm.Wait(wait))
}
