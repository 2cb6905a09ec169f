package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/heron-shell/heron/tests/ptytest"
)

// ansi matches the escape sequences go-prompt writes around its prompt.
var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\a]*\a`)

// Issue 16 §5, §6, §7, §9 on an 80-column terminal (kubectl exec): help and
// tables fit it, birdwatcher's aliases run, a typo gets a did-you-mean, a
// collection's name completes to its id, --file completes backup paths.
func TestDemoREPLAt80Columns(t *testing.T) {
	if testing.Short() {
		t.Skip("pty test")
	}
	home, dir := t.TempDir(), t.TempDir()
	backup := filepath.Join(dir, "heron-backup-by-dev-reset-kafka-rev9-20261203T101500Z.jsonl")
	if err := os.WriteFile(backup, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), mainChildEnv+"=1", mainChildEnv+"_ARGS=demo", "HERON_HOME="+home, "TERM=xterm")
	tm := ptytest.StartSize(t, cmd, 40, 80)
	const wait = 20 * time.Second
	tm.Expect("Milvus(by-dev) > ", wait)

	tm.Send("reset checkpoint --help\r")
	tm.Expect("Example:", wait)
	tm.Expect("Milvus(by-dev) > ", wait)
	tm.Send("show collections\r")
	tm.Expect("collection key(s)", wait)
	tm.Expect("Milvus(by-dev) > ", wait)
	out := tm.Output()
	start := strings.Index(out, "reset checkpoint: rewrite")
	end := strings.Index(out, "collection key(s)")
	assert.Positive(t, start)
	for _, l := range strings.Split(out[start:end], "\n") {
		l = ansi.ReplaceAllString(strings.TrimRight(l, "\r"), "")
		if strings.Contains(l, "Milvus(by-dev)") {
			continue
		}
		assert.LessOrEqual(t, len([]rune(l)), 80, "line wider than the terminal: %q", l)
	}
	tm.Send("show etcd-kv --prefix meta/datacoord-meta/channel-cp/ --decode\r")
	tm.Expect("meta/datacoord-meta/channel-cp/by-dev-rootcoord-dml_1_100v1 ", wait) // a key is never cut
	tm.Expect("Milvus(by-dev) > ", wait)

	tm.Send("reset checkpoint --target-wal kafka\r")
	tm.Expect("scope: whole instance: 3 pchannels (dml_0, dml_1, dml_2)", wait)
	tm.Expect("examples (before -> after):", wait) // stacked: the one-row table needs 120 columns
	tm.Expect("dry run: nothing was written", wait)
	tm.Expect("Milvus(by-dev) > ", wait)

	tm.Send("show segments --format line\r")
	tm.Expect("kind=segment id=1001", wait)
	tm.Expect("Milvus(by-dev) > ", wait)
	tm.Send("show segmnt\r")
	tm.Expect(`did you mean show segment?`, wait)
	tm.Expect("Milvus(by-dev) > ", wait)

	tm.Send("show segment --collection boo\t")
	tm.Expect("books", wait) // the menu shows the name beside the id
	tm.Send("--format line\r")
	tm.Expect("kind=segment id=1001 collection=100", wait)
	tm.Expect("Milvus(by-dev) > ", wait)

	tm.Send("restore --file " + dir + "/\t")
	tm.Expect(dir+"/heron-backup-b", wait) // the menu offers the backup
	tm.Send("\r")
	tm.Expect(backup, wait) // the error line is wrapped at 80 columns, the path whole on its line
	tm.Expect("is empty", wait)
	tm.Expect("Milvus(by-dev) > ", wait)

	tm.Send("load-backup " + backup + "\r")
	tm.Expect("run\r\n  `heron load-backup "+backup+"`\r\n  from your shell", wait) // the command whole on its own line
	tm.Expect("Milvus(by-dev) > ", wait)
	tm.Send("exit\r")
	assert.Equal(t, 0, tm.Wait(wait))
}

// Issue 16 §5: every listing of the demo and a plan fit an 80-column
// terminal (rows cut, --wide shows them in full; prose broken at spaces).
func TestDemoTablesFit80Columns(t *testing.T) {
	if testing.Short() {
		t.Skip("pty test")
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), mainChildEnv+"=1", mainChildEnv+"_ARGS=demo", "HERON_HOME="+t.TempDir(), "TERM=xterm")
	tm := ptytest.StartSize(t, cmd, 40, 80)
	const wait = 20 * time.Second
	tm.Expect("Milvus(by-dev) > ", wait)
	for _, c := range []struct{ line, footer string }{
		{"show database", "database(s)"},
		{"show replica", "replica(s)"},
		{"show index", "index(es)"},
		{"show channel-watch", "channel watch(es)"},
		{"show session", "session(s)"},
		{"show segment", "segment(s) shown"},
		{"show partition", "partition(s)"},
		{"show config-etcd", "key(s) under"},
		{"show broadcast-task", "task(s)"},
		{"show wal-distribution", "on a live streaming node"},
		{"show vchannel-health", "lag is against wall clock"},
		{"check --format table", "vchannel-registration"},
		{"show checkpoint", "WOODPECKER LOGS"},
		{"show collections", "--wide adds"},
		{"reset checkpoint --target-wal kafka", "dry run: nothing was written"},
	} {
		tm.Send(c.line + "\r")
		tm.Expect(c.footer, wait)
		tm.Expect("Milvus(by-dev) > ", wait)
		out := tm.Output()
		start := strings.LastIndex(out, c.line)
		end := strings.LastIndex(out, c.footer)
		for _, l := range strings.Split(out[start+len(c.line):end], "\n") {
			l = ansi.ReplaceAllString(strings.TrimRight(l, "\r"), "")
			assert.LessOrEqual(t, len([]rune(l)), 80, "%s: line wider than the terminal: %q", c.line, l)
		}
	}
	// show collections fits without breaking its header row.
	assert.Regexp(t, `(?m)^ID +DB +NAME +STATE +SHARDS +PCHANNELS +LAYOUT +START POS\r?$`, ansi.ReplaceAllString(tm.Output(), ""))
	tm.Send("exit\r")
	assert.Equal(t, 0, tm.Wait(wait))
}
