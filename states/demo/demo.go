// Package demo runs heron against an embedded etcd seeded with a sample
// Milvus instance, so a newcomer can try every command without a cluster.
package demo

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/spf13/pflag"

	"github.com/heron-shell/heron/configs"
	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/instance"
)

// Main runs `heron demo [--wal W]`: it seeds a fresh embedded etcd, opens the
// shell connected to it (the REPL when interactive, else one command a line
// from stdin), and removes the etcd folder when the shell ends or a signal
// ends the demo (see serve). With the standard files it runs the shell in a
// child process when it was started as `heron demo` (see supervise), so that the folder goes even when the shell
// does not get to remove it.
func Main(ctx context.Context, args []string, interactive bool, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("demo", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	walName := fs.String("wal", "pulsar", "`WAL` the sample's positions are encoded for: "+strings.Join(msgid.Names(), ", "))
	rootPath := fs.String("rootPath", configs.DefaultRootPath, "root path of the sample instance")
	if code, done := framework.ParseMain(fs, args, "demo: ", usage, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "error: demo takes no arguments, got %q\n", fs.Args())
		usage(stderr, fs)
		return framework.ExitUsage
	}
	wal, err := msgid.Parse(*walName)
	if err != nil {
		fmt.Fprintf(stderr, "error: --wal: %v\n", err)
		return framework.ExitUsage
	}
	dir := os.Getenv(folderEnv)
	if dir == "" && startedAsDemo() {
		if files, ok := stdFiles(stdin, stdout, stderr); ok {
			return supervise(files, interactive, stderr)
		}
	}
	// Signals are caught before the folder exists, so that none comes
	// between its creation and the shell.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals(interactive)...)
	defer signal.Stop(sigs)
	sh, cleanup, err := start(ctx, dir, wal, *rootPath, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return framework.ExitFailed
	}
	defer cleanup()
	return serve(ctx, "demo", sh, sigs, interactive, stdin, stderr)
}

// folderEnv names the folder a supervised demo process runs its etcd in.
const folderEnv = "HERON_DEMO_FOLDER"

// startedAsDemo reports whether this process is `heron demo ...`, which
// supervise can start again as its child (a test calling Main is not).
func startedAsDemo() bool { return len(os.Args) > 1 && os.Args[1] == "demo" }

func stdFiles(stdin io.Reader, stdout, stderr io.Writer) ([3]*os.File, bool) {
	in, ok1 := stdin.(*os.File)
	out, ok2 := stdout.(*os.File)
	errf, ok3 := stderr.(*os.File)
	return [3]*os.File{in, out, errf}, ok1 && ok2 && ok3
}

// supervise creates the demo folder, runs the demo (this command line again)
// in a child process that keeps its etcd there, and removes the folder when
// the child ends, however it ends: the shell may leave by os.Exit on a
// signal, or be killed. It passes SIGTERM and SIGHUP on to the child, and
// SIGINT in script mode; in the REPL the terminal sends Ctrl-C to the child
// itself (it is in the same process group), so the supervisor ignores it.
func supervise(files [3]*os.File, interactive bool, stderr io.Writer) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "error: demo: find heron's executable: %v\n", err)
		return framework.ExitFailed
	}
	dir, err := os.MkdirTemp("", "heron-demo-")
	if err != nil {
		fmt.Fprintf(stderr, "error: demo folder: %v\n", err)
		return framework.ExitFailed
	}
	defer func() { _ = os.RemoveAll(dir) }()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, os.Interrupt)
	defer signal.Stop(sigs)

	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env = append(os.Environ(), folderEnv+"="+dir)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = files[0], files[1], files[2]
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "error: demo: start %s: %v\n", exe, err)
		return framework.ExitFailed
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	for {
		select {
		case sig := <-sigs:
			if sig == os.Interrupt && interactive {
				continue
			}
			_ = cmd.Process.Signal(sig)
		case <-done:
			if code := cmd.ProcessState.ExitCode(); code >= 0 {
				return code
			}
			return framework.ExitFailed // killed by a signal
		}
	}
}

// stopSignals are the signals that end the demo: SIGTERM and SIGHUP always,
// SIGINT only in script mode (in the REPL Ctrl-C interrupts the running
// command and the shell goes on).
func stopSignals(interactive bool) []os.Signal {
	sigs := []os.Signal{syscall.SIGTERM, syscall.SIGHUP}
	if !interactive {
		sigs = append(sigs, os.Interrupt)
	}
	return sigs
}

// stopGrace is how long, after a signal, the shell may take to stop its
// command before the demo stops etcd under it: the folder goes either way.
const stopGrace = 5 * time.Second

// serve runs the shell until it ends or a signal from sigs ends the demo.
// A signal cancels the shell's context; serve returns (and Main removes the
// folder) when the shell has stopped, after stopGrace, or at a second
// signal.
func serve(ctx context.Context, name string, sh *framework.Shell, sigs <-chan os.Signal, interactive bool, stdin io.Reader, stderr io.Writer) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	done := make(chan int, 1)
	go func() {
		if interactive {
			done <- sh.RunREPL(ctx)
		} else {
			done <- sh.RunScript(ctx, untilDone(ctx, stdin))
		}
	}()
	select {
	case code := <-done:
		return code
	case sig := <-sigs:
		fmt.Fprintf(stderr, "%s: %v: stopping and removing the %s folder\n", name, sig, name)
		cancel()
	}
	select {
	case code := <-done:
		if code == framework.ExitOK {
			code = framework.ExitFailed
		}
		return code
	case <-sigs:
	case <-time.After(stopGrace):
	}
	return framework.ExitFailed
}

func usage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, `Usage:
  heron demo [--wal WAL] [--rootPath STRING]

Starts an embedded etcd in a temporary folder, seeds it with a sample stopped
Milvus instance and opens the shell connected to it (the REPL on a terminal,
else one command a line from stdin). The folder is removed on exit and on
SIGINT, SIGTERM and SIGHUP.

Flags:
%s`, framework.FlagUsages(fs))
}

// start starts the embedded etcd in the folder dir ("": a new one), seeds
// it and returns a shell connected to it (with ConnectedCommands), with the
// function that closes the shell's state, stops etcd and removes the folder;
// it may be called more than once.
func start(ctx context.Context, dir string, wal commonpb.WALName, rootPath string, stdout, stderr io.Writer) (*framework.Shell, func(), error) {
	return startIn(ctx, dir, "demo", rootPath, func(ctx context.Context, inst *instance.Instance) (string, error) {
		in := sample.Demo(inst.Layout, wal)
		if _, err := inst.Load(ctx, in.KeyValues()); err != nil {
			return "", fmt.Errorf("seed the demo: %w", err)
		}
		return fmt.Sprintf("seeded %d keys of a stopped Milvus instance on %s", len(in.KVs), msgid.Name(wal)), nil
	}, stdout, stderr)
}

// untilDone reads r until ctx is done, then ends as at end of input: a
// script waiting for its next line stops at the signal, not at the next line.
func untilDone(ctx context.Context, r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, r)
		pw.CloseWithError(err)
	}()
	go func() {
		<-ctx.Done()
		_ = pw.Close()
	}()
	return pr
}
