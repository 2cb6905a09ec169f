package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type docParams struct {
	ParamBase  `use:"reset doc" desc:"a documented command" example:"reset doc --file BACKUP --pchannel dml_0"`
	File       string   `name:"file" placeholder:"BACKUP" required:"true" desc:"the backup file"`
	Dir        string   `name:"backup-dir" placeholder:"DIR" default:"." desc:"where backups go"`
	PChannels  []string `name:"pchannel" placeholder:"PCHANNEL" desc:"only this pchannel (repeatable); all when omitted"`
	Collection int64    `name:"collection" default:"0" desc:"only this collection; all when omitted"`
	Limit      int      `name:"limit" default:"1000" desc:"at most N rows"`
	Name       string   `name:"name" desc:"a name"`
}

func newDocShell(t *testing.T) (*Shell, *bytes.Buffer) {
	t.Helper()
	st := newFake("Fake")
	st.cmds = append(st.cmds, Read(st, func(context.Context, *fakeState, *docParams, IO) (Result, error) { return Message("ok"), nil }))
	var out bytes.Buffer
	sh := NewShell(st, &out, &discard{})
	sh.SetHistoryFile("")
	return sh, &out
}

// Issue 10 §3: placeholders, examples, no doubled "(repeatable)", no "(default 0)".
func TestCommandHelp(t *testing.T) {
	sh, out := newDocShell(t)
	require.NoError(t, sh.Run(context.Background(), "reset doc --help"))
	h := out.String()
	for _, want := range []string{
		"--file BACKUP", "--backup-dir DIR", "where backups go (default .)", "--pchannel PCHANNEL",
		"--collection N", "--limit N", "(default 1000)", "--name STRING",
		"Example:\n  reset doc --file BACKUP --pchannel dml_0",
	} {
		assert.Contains(t, h, want)
	}
	assert.Equal(t, 1, strings.Count(h, "repeatable"), "no doubled (repeatable):\n%s", h)
	assert.NotContains(t, h, "default 0")
	assert.Contains(t, h, "only this collection; all when omitted\n")

	out.Reset()
	require.NoError(t, sh.Run(context.Background(), "help reset doc"))
	assert.Contains(t, out.String(), "Example:")

	var b bytes.Buffer
	c := sh.index().byPath["reset doc"]
	require.NoError(t, Render(&b, &helpResult{detail: c}, FormatJSON))
	var doc struct {
		Commands []struct {
			Example string `json:"example"`
			Flags   []struct {
				Name        string `json:"name"`
				Placeholder string `json:"placeholder"`
			} `json:"flags"`
		} `json:"commands"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	assert.Equal(t, "reset doc --file BACKUP --pchannel dml_0", doc.Commands[0].Example)
	assert.Equal(t, "BACKUP", doc.Commands[0].Flags[0].Placeholder)
}

// Issue 10 §3: `show --help` lists the group's subcommands and succeeds.
func TestGroupHelp(t *testing.T) {
	for _, line := range []string{"show --help", "show -h", "reset --help"} {
		t.Run(line, func(t *testing.T) {
			sh, out := newDocShell(t)
			require.NoError(t, sh.Run(context.Background(), line))
			group := strings.Fields(line)[0]
			assert.Contains(t, out.String(), "Commands:")
			for _, c := range sh.index().cmds {
				if strings.HasPrefix(c.Path(), group+" ") {
					assert.Contains(t, out.String(), c.Path())
				} else {
					assert.NotContains(t, out.String(), c.Path())
				}
			}
		})
	}
	sh, _ := newDocShell(t)
	assert.Equal(t, ExitUsage, ExitCode(sh.Run(context.Background(), "show")), "a group without --help still needs a subcommand")
	assert.Equal(t, ExitUsage, ExitCode(sh.Run(context.Background(), "nothing --help")))
	assert.Equal(t, ExitUsage, ExitCode(sh.Run(context.Background(), "show --bogus --help")))
}

func TestFlagUsages(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.String("olc", "", "run `COMMANDS` and exit")
	fs.String("rootPath", "by-dev", "root path")
	fs.String("wal", "", "the WAL")
	fs.Int("n", 0, "how many")
	fs.Bool("version", false, "print the versions")
	got := FlagUsages(fs)
	for _, want := range []string{"--olc COMMANDS", "run COMMANDS and exit\n", "--rootPath STRING", "root path (default by-dev)", "--wal STRING", "--n N", "how many\n", "--version  "} {
		assert.Contains(t, got, want)
	}
	assert.NotContains(t, got, "string")
	assert.NotContains(t, got, "default 0")
	assert.NotContains(t, got, "default false")
}
