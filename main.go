// Command heron is a metadata shell for Milvus: connect it to the etcd of a
// Milvus instance, look around with show commands, repair with write
// commands. On a terminal it is a REPL; otherwise it reads one command a line
// from standard input; --olc runs comma-separated commands.
package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/mattn/go-isatty"
	"github.com/spf13/pflag"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/states"
)

func main() {
	framework.PaceGC()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "demo" {
		return demoMain(args[1:])
	}
	if len(args) > 0 && args[0] == "load-backup" {
		return loadBackupMain(args[1:], stdin, stdout, stderr)
	}
	// heron version, heron backups [--dir DIR]: the shell's commands that
	// need no connection, run once (heron version is heron --version).
	if len(args) > 0 && (args[0] == "version" || args[0] == "backups") {
		sh := framework.NewShell(states.NewOffline(), stdout, stderr)
		defer sh.Close()
		return sh.RunOLC(context.Background(), shellLine(args))
	}

	fs := pflag.NewFlagSet("heron", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	olc := fs.String("olc", "", "run comma-separated `COMMANDS` and exit, e.g. \"connect --etcd 127.0.0.1:2379, show checkpoint\" (quote a comma inside a value)")
	version := fs.Bool("version", false, "print the versions and exit")
	if code, done := framework.ParseMain(fs, args, "", usage, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "error: unexpected argument %q\n", fs.Arg(0))
		usage(stderr, fs)
		return framework.ExitUsage
	}
	if *version {
		if err := framework.Render(stdout, states.VersionInfo(), framework.FormatTable); err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			return framework.ExitFailed
		}
		return framework.ExitOK
	}

	// connect moves to the connected state holding states.ConnectedCommands.
	sh := framework.NewShell(states.NewOffline(), stdout, stderr)
	defer sh.Close()
	if fs.Changed("olc") {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := connectFromEnv(ctx, sh, firstOLC(*olc), stderr); err != nil {
			return framework.ExitCode(err)
		}
		return sh.RunOLC(ctx, *olc)
	}
	if isatty.IsTerminal(stdin.Fd()) {
		// kubectl run -it --env HERON_ETCD=...: the shell starts connected;
		// when it cannot, the shell says why and stays offline.
		_ = connectFromEnv(context.Background(), sh, "", stderr)
		return sh.RunREPL(context.Background())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	in := &sawInput{r: stdin}
	script := bufio.NewReader(in)
	first, read := firstCommand(script)
	if err := connectFromEnv(ctx, sh, first, stderr); err != nil {
		return framework.ExitCode(err)
	}
	code := sh.RunScript(ctx, io.MultiReader(strings.NewReader(read), script))
	if code == framework.ExitOK && !in.saw {
		fmt.Fprintln(stderr, "heron: standard input is not a terminal and held no command: nothing was done. "+
			"For the shell, run heron on a terminal (kubectl run -it, kubectl exec -it, docker run -it); "+
			"without one, pipe the commands in or pass them: heron --olc \"connect, show checkpoint\"")
	}
	return code
}

// connectFromEnv connects sh when HERON_ETCD is set (a Job's or a pod's
// environment), saying so first, on a terminal and in a script alike;
// first is the script's first command: one that is connect (reading
// HERON_ETCD itself) is left to connect, and none (an empty script) needs
// no connection. The error, printed, is the connect's.
func connectFromEnv(ctx context.Context, sh *framework.Shell, first string, stderr io.Writer) error {
	ep := os.Getenv("HERON_ETCD")
	if words := strings.Fields(first); ep == "" || len(words) > 0 && words[0] == "connect" {
		return nil
	}
	fmt.Fprintf(stderr, "HERON_ETCD is set: connect (to %s)\n", framework.TerminalText(ep))
	err := sh.Run(ctx, "connect")
	if err != nil {
		fmt.Fprintln(stderr, framework.ErrorLine(stderr, err))
	}
	return err
}

// firstCommand reads r up to its first command (a line neither blank nor
// a # comment) and returns it, "" at the end of r, and everything read,
// to be run again.
func firstCommand(r *bufio.Reader) (first, read string) {
	var sb strings.Builder
	for {
		line, err := r.ReadString('\n')
		sb.WriteString(line)
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			return t, sb.String()
		}
		if err != nil {
			return "", sb.String()
		}
	}
}

// firstOLC is the first command of --olc's commands ("" when none).
func firstOLC(commands string) string {
	for _, line := range framework.SplitOLC(commands) {
		if line != "" && !strings.HasPrefix(line, "#") {
			return line
		}
	}
	return ""
}

// sawInput is stdin that notes whether it held anything but white space:
// heron with an empty stdin and no terminal says it did nothing.
type sawInput struct {
	r   io.Reader
	saw bool
}

func (s *sawInput) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if !s.saw && len(strings.TrimSpace(string(p[:n]))) > 0 {
		s.saw = true
	}
	return n, err
}

// shellLine joins program arguments into one shell line, quoting those
// that hold a space, a quote or a comma (RunOLC splits on commas).
func shellLine(args []string) string {
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = a
		if a == "" || strings.ContainsAny(a, " \t\"',") {
			words[i] = strconv.Quote(a)
		}
	}
	return strings.Join(words, " ")
}

func usage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, `Usage:
  heron                        REPL on a terminal; else one command a line from stdin
  heron --olc "cmd1, cmd2"     run comma-separated commands
  heron demo [--wal WAL]       the shell on an embedded, seeded etcd (heron demo --help)
  heron load-backup FILE       the shell on an embedded etcd loaded from a backup (--help)

Flags:
%s
Inside the shell: help lists the commands, COMMAND --help shows one.
Exit codes: 0 ok, 1 a command failed (or was interrupted), 2 usage error,
3 a write refused by a safety gate.
`, framework.FlagUsages(fs))
}
