package profile

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/states"
)

// BenchmarkScript profiles one command in a heron session, in-process: the
// first line of HERON_PROFILE_SCRIPT (a connect) runs once, the second (a
// repair's dry run, say) once per iteration:
//
//	HERON_PROFILE_SCRIPT="$(printf 'connect --etcd 127.0.0.1:PORT\nrepair checkpoint --vchannel V --set-to latest-cp')" \
//	  go test ./bench/profile -run '^$' -bench Script -benchtime 5x -cpuprofile /tmp/cpu.out
func BenchmarkScript(b *testing.B) {
	lines := strings.Split(os.Getenv("HERON_PROFILE_SCRIPT"), "\n")
	if len(lines) != 2 {
		b.Skip("set HERON_PROFILE_SCRIPT to two lines: a connect, then the command to profile")
	}
	sh := framework.NewShell(states.NewOffline(), io.Discard, io.Discard)
	defer sh.Close()
	if err := sh.Run(context.Background(), lines[0]); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		// A plan a gate refuses (exit 3) read all it reads, as one it allows.
		if err := sh.Run(context.Background(), lines[1]); err != nil && framework.ExitCode(err) != framework.ExitRefused {
			b.Fatal(err)
		}
	}
}
