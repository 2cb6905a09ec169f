package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// make readme-transcript: each command of the session after the prompt,
// followed by its output, from heron demo with piped input.
func TestReadmeTranscript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds heron")
	}
	heron := filepath.Join(t.TempDir(), "heron")
	b, err := exec.Command("go", "build", "-o", heron, "..").CombinedOutput()
	require.NoError(t, err, "%s", b)
	session := filepath.Join(t.TempDir(), "session.txt")
	require.NoError(t, os.WriteFile(session, []byte("# a comment\nshow session\n\nshow database --format line\n"), 0o600))

	out, err := exec.Command("python3", "readme_transcript.py", heron, session).Output()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	require.Greater(t, len(lines), 6, "%s", out)
	assert.Equal(t, "    $ heron demo", lines[0])
	assert.Contains(t, lines[1], "demo: embedded etcd at")
	assert.Equal(t, "    Milvus(by-dev) > show session", lines[2])
	assert.Contains(t, lines[3], "KEY")
	text := string(out)
	assert.Contains(t, text, "    4 session(s), 0 alive\n    Milvus(by-dev) > show database --format line\n")
	assert.Contains(t, text, "kind=database id=1 name=library")
	assert.True(t, strings.HasSuffix(text, "    Milvus(by-dev) > exit\n"), "%s", text)
	assert.NotContains(t, text, "heron=", "the end-of-output marker is not printed")

	require.NoError(t, os.WriteFile(session, []byte("show session\nshow nosuch\nshow database\n"), 0o600))
	cmd := exec.Command("python3", "readme_transcript.py", heron, session)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err = cmd.Output()
	require.Error(t, err, "a failing command fails the transcript")
	assert.Contains(t, string(out), `error: unknown command "show nosuch"`)
	assert.NotContains(t, string(out), "> show database")
	assert.Contains(t, stderr.String(), "heron exited 2 after 'show nosuch'")
}
