package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/states/backup"
	"github.com/heron-shell/heron/tests/ptytest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// Issue 10 §6: heron load-backup --help uses the shell's flag style and exits 0.
func TestLoadBackupHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"load-backup", "--help"}, pipe(t, ""), &out, &errOut)
	assert.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), "heron load-backup FILE")
	out.Reset()
	code = run([]string{"--help"}, pipe(t, ""), &out, &errOut)
	assert.Equal(t, 0, code)
	assert.Contains(t, out.String(), "heron load-backup FILE")

	out.Reset()
	code = run([]string{"load-backup", "--bogus"}, pipe(t, ""), &out, &errOut)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut.String(), "error: load-backup: unknown flag: --bogus\nUsage:\n  heron load-backup FILE")
	assert.Empty(t, out.String())
}

// Issue 10 §6: the load-backup folder is removed when a signal ends it
// while the script waits for its next line.
func TestLoadBackupSignalsRemoveTheFolder(t *testing.T) {
	s := shelltest.Start(t, commonpb.WALName_Pulsar)
	file := filepath.Join(t.TempDir(), "b.jsonl")
	_, err := backup.Write(context.Background(), s.Inst, backup.Options{File: file})
	require.NoError(t, err)
	folder := regexp.MustCompile(`folder (\S+), removed on exit`)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			c := startChild(t, "load-backup "+file, "show session --format line\n")
			var dir string
			require.Eventually(t, func() bool {
				if m := folder.FindStringSubmatch(c.errOut.String()); m != nil && strings.Contains(c.out.String(), "session") {
					dir = m[1]
					return true
				}
				return false
			}, 20*time.Second, 10*time.Millisecond, "stderr: %s", c.errOut.String())
			_, err := os.Stat(dir)
			require.NoError(t, err, "the folder exists while the shell runs")
			assert.Equal(t, 1, c.signalExit(t, sig), "stderr: %s", c.errOut.String())
			assert.Contains(t, c.errOut.String(), "stopping and removing the load-backup folder")
			_, err = os.Stat(dir)
			assert.True(t, os.IsNotExist(err), "the folder %s is removed", dir)
		})
	}
}

// On a terminal load-backup is the REPL on the copy: exit, or a SIGTERM,
// ends it and removes the folder.
func TestLoadBackupREPLRemovesTheFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("pty test")
	}
	s := shelltest.Start(t, commonpb.WALName_Pulsar)
	file := filepath.Join(t.TempDir(), "b.jsonl")
	_, err := backup.Write(context.Background(), s.Inst, backup.Options{File: file})
	require.NoError(t, err)
	folder := regexp.MustCompile(`folder (\S+), removed on exit`)
	for _, end := range []string{"exit", "SIGTERM"} {
		t.Run(end, func(t *testing.T) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), mainChildEnv+"=1", mainChildEnv+"_ARGS=load-backup "+file, "HERON_HOME="+t.TempDir(), "TERM=xterm")
			tm := ptytest.Start(t, cmd)
			tm.Expect("Milvus(by-dev) > ", 20*time.Second)
			m := folder.FindStringSubmatch(tm.Output())
			require.NotNil(t, m, tm.Output())
			_, err := os.Stat(m[1])
			require.NoError(t, err, "the folder exists while the REPL runs")
			if end == "exit" {
				tm.Send("exit\r")
				assert.Equal(t, 0, tm.Wait(15*time.Second))
			} else {
				tm.Signal(syscall.SIGTERM)
				tm.Wait(15 * time.Second)
			}
			_, err = os.Stat(m[1])
			assert.True(t, os.IsNotExist(err), "the folder %s is removed: %s", m[1], tm.Output())
		})
	}
}
