package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/states/demo"
)

var updateCommandsDoc = flag.Bool("update-commands-doc", false, "write docs/commands.md from the binary's help (make commands-doc)")

const commandsDoc = "docs/commands.md"

// docs/commands.md is what the binary prints for `help --format markdown`
// offline and connected (heron demo): a flag or a command added, renamed or
// described anew without `make commands-doc` fails here.
func TestCommandsDocIsCurrent(t *testing.T) {
	t.Setenv("HERON_HOME", t.TempDir())
	const line = "help --format markdown\n"
	var offlineOut, demoOut, errb bytes.Buffer
	require.Equal(t, 0, run(nil, pipe(t, line), &offlineOut, &errb), errb.String())
	require.Equal(t, 0, demo.Main(context.Background(), nil, false, pipe(t, line), &demoOut, &errb), errb.String())
	offline := offlineOut.String()
	seen := map[string]bool{}
	for _, sec := range strings.Split(offline, "### ")[1:] {
		seen[strings.SplitN(sec, "\n", 2)[0]] = true
	}
	var connected strings.Builder
	for _, sec := range strings.Split(demoOut.String(), "### ")[1:] {
		if name := strings.SplitN(sec, "\n", 2)[0]; !seen[name] {
			connected.WriteString("### " + sec)
		}
	}
	doc := "# Command reference\n\n" +
		"Generated from the binary (`help --format markdown`, offline and connected) by `make commands-doc`;\n" +
		"`go test -run TestCommandsDocIsCurrent .` fails when it differs. `help COMMAND` prints the same in the shell.\n\n" +
		"## Offline (before connect)\n\n" + offline +
		"\n## Connected (after connect, and in heron demo)\n\n" + connected.String()
	if *updateCommandsDoc {
		require.NoError(t, os.WriteFile(commandsDoc, []byte(doc), 0o644))
		return
	}
	got, err := os.ReadFile(commandsDoc)
	require.NoError(t, err)
	if string(got) != doc {
		t.Fatalf("%s is not what the binary prints: run make commands-doc", commandsDoc)
	}
}
