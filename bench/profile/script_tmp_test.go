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

func BenchmarkScriptTmp(b *testing.B) {
	lines := strings.Split(os.Getenv("HERON_PROFILE_SCRIPT"), "\n")
	if len(lines) < 2 {
		b.Skip()
	}
	sh := framework.NewShell(states.NewOffline(), io.Discard, io.Discard)
	if err := sh.Run(context.Background(), lines[0]); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		_ = sh.Run(context.Background(), lines[1])
	}
}
