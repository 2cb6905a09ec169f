package framework

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// SetHistoryFile sets the REPL history file; "" disables history. Without it
// the REPL uses configs.Load().HistoryFile.
func (sh *Shell) SetHistoryFile(path string) {
	sh.historyFile, sh.historySet = path, true
}

// Issue 9 item 7: after each mistyped form the history file holds no secret.
func TestHistoryRedactsMistypedPasswordFlags(t *testing.T) {
	tests := []struct {
		line string
		want string // the line as stored; "" : not stored
	}{
		{"connect --etcdPasword S3cr3t", "connect --etcdPasword ***"},
		{"connect -etcdPassword S3cr3t", "connect -etcdPassword ***"},
		{"connect ---x-pass=S3cr3t", "connect ---x-pass=***"},
		{"connect --ETCDPASSWORD=S3cr3t --etcd a:1", "connect --ETCDPASSWORD=*** --etcd a:1"},
		{"connect --etcdUserName root S3cr3t", "connect --etcdUserName root ***"},
		{"connect --etcd a:1 S3cr3t --force", "connect --etcd a:1 *** --force"},
		{"connect --force S3cr3t", "connect --force ***"},
		{"connect --etcdPw S3cr3t", "connect --etcdPw ***"},
		{"connect --etcdUser=root --etcdPassowrd S3cr3t", "connect --etcdUser=*** --etcdPassowrd ***"},
		{"connect --etcd a:1 -- S3cr3t", "connect --etcd a:1 -- ***"},
		{"connect --rootPath by-dev", "connect --rootPath ***"}, // not a flag of connect: maybe a mistyped password flag
		{"connect --etcdPassword 'S3cr3t", ""},
		{"echo -password S3cr3t --name x", "echo -password *** --name x"},
		{"show one --passphrase S3cr3t", "show one --passphrase ***"},
		{"echo --name 'a b'", "echo --name 'a b'"},
		{"reset wal --minio-secret-access-key S3cr3t --run", "reset wal --minio-secret-access-key *** --run"},
		{"reset wal --minio-secret-access-key=S3cr3t", "reset wal --minio-secret-access-key=***"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			sh, _ := newCredShell(t)
			path := filepath.Join(t.TempDir(), "history")
			_ = sh.Run(context.Background(), tt.line) // a mistyped line fails; it is recorded all the same
			hist, err := sh.recordHistory(path, nil, tt.line)
			require.NoError(t, err)
			b, err := os.ReadFile(path)
			if tt.want == "" {
				assert.True(t, os.IsNotExist(err), "nothing stored")
				assert.Empty(t, hist)
				return
			}
			require.NoError(t, err)
			assert.NotContains(t, string(b), "S3cr3t")
			assert.Equal(t, tt.want+"\n", string(b))
		})
	}
}

// A connect line typed in a state without connect (the demo starts connected)
// still loses its stray words.
func TestHistoryConnectWithoutItsFlags(t *testing.T) {
	sh, _, _, _ := newTestShell(t)
	path := filepath.Join(t.TempDir(), "history")
	_, err := sh.recordHistory(path, nil, "connect --etcdUserName root --force S3cr3t x")
	require.NoError(t, err)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "connect --etcdUserName root --force S3cr3t ***\n", string(b), "without connect's flags every flag is taken to have a value")
}

// The first line a shell records already knows the flags of its state.
func TestHistoryFirstLineKnowsTheFlags(t *testing.T) {
	st := &fakeState{name: "Offline"}
	st.cmds = []*Command{Read(st, func(context.Context, *fakeState, *credParams, IO) (Result, error) { return nil, nil })}
	sh := NewShell(st, &discard{}, &discard{})
	path := filepath.Join(t.TempDir(), "history")
	_, err := sh.recordHistory(path, nil, "connect --force S3cr3t")
	require.NoError(t, err)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "connect --force ***\n", string(b))
}
