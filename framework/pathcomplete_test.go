package framework

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type fileFlagsParams struct {
	ParamBase `use:"restore" desc:"files"`
	File      string `name:"file" placeholder:"BACKUP"`
	Out       string `name:"out" placeholder:"FILE" complete:"-"`
	CA        string `name:"ca" placeholder:"FILE"`
	WriteFlags
}

// Issue 16 §7: --file completes backups newest first, --backup-dir only
// folders, a FILE flag any file; folders end with / and no space.
func TestPathCompletion(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "heron-backup-by-dev-reset-kafka-rev1-20261201T000000Z.jsonl")
	newer := filepath.Join(dir, "heron-backup-by-dev-reset-kafka-rev9-20261202T000000Z.jsonl")
	for _, f := range []string{old, newer, filepath.Join(dir, "ca.pem"), filepath.Join(dir, ".hidden")} {
		require.NoError(t, os.WriteFile(f, nil, 0o600))
	}
	require.NoError(t, os.Chtimes(old, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour)))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o700))

	st := newFake("Fake")
	st.cmds = []*Command{Read(st, func(context.Context, *fakeState, *fileFlagsParams, IO) (Result, error) { return Message("ok"), nil })}
	var out bytes.Buffer
	sh := NewShell(st, &out, &out)
	texts := func(before string) []string {
		var s []string
		for _, sg := range sh.replSuggest(before) {
			s = append(s, sg.Text)
		}
		return s
	}
	assert.Equal(t, []string{newer + " ", old + " ", dir + "/ca.pem ", dir + "/sub/"}, texts("restore --file "+dir+"/"))
	assert.Equal(t, []string{dir + "/sub/"}, texts("restore --backup-dir "+dir+"/"))
	assert.Equal(t, []string{"--ca=" + dir + "/ca.pem "}, texts("restore --ca="+dir+"/c"))
	assert.Empty(t, texts("restore --out "+dir+"/"), "complete:\"-\" completes nothing")
	assert.Equal(t, []string{dir + "/.hidden "}, texts("restore --ca "+dir+"/.h"))
}
