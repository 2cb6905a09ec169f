package demo

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv makes the test binary run demo.Main in script mode instead of the
// tests: the signal tests need a process of their own to signal.
const childEnv = "HERON_DEMO_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(Main(context.Background(), nil, false, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

var folderRE = regexp.MustCompile(`\(folder (\S+), removed on exit\)`)

// startChild starts the demo in a child process with its temporary folders
// under tmp, and returns it once it announced its folder, with its stdin.
func startChild(t *testing.T, tmp string) (*exec.Cmd, io.WriteCloser, string) {
	t.Helper()
	// Started as "TESTBINARY demo", like "heron demo": Main supervises.
	cmd := exec.Command(os.Args[0], "demo")
	cmd.Env = append(os.Environ(), childEnv+"=1", "TMPDIR="+tmp)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := folderRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		close(found)
	}()
	select {
	case dir, ok := <-found:
		if !ok {
			t.Fatal("the demo ended without announcing its folder")
		}
		if _, err := os.Stat(dir); err != nil {
			t.Fatalf("the announced folder: %v", err)
		}
		return cmd, stdin, dir
	case <-time.After(60 * time.Second):
		t.Fatal("the demo did not start within 60s")
	}
	return nil, nil, ""
}

// wait waits for the child and returns its exit code.
func wait(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("wait for the demo: %v", err)
		}
		return cmd.ProcessState.ExitCode()
	case <-time.After(stopGrace + 20*time.Second):
		t.Fatal("the demo did not exit")
	}
	return -1
}

func assertRemoved(t *testing.T, tmp, dir string) {
	t.Helper()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the demo folder %s is left (stat: %v)", dir, err)
	}
	left, _ := os.ReadDir(tmp)
	for _, e := range left {
		t.Errorf("left in TMPDIR: %s", e.Name())
	}
}

// TestSignalRemovesFolder: issue 9 item 1, `heron demo` removes its folder on
// SIGINT, SIGTERM and SIGHUP while it waits for a command (a 123 MB folder
// was left).
func TestSignalRemovesFolder(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			cmd, stdin, dir := startChild(t, tmp)
			defer stdin.Close()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := wait(t, cmd); code != 1 {
				t.Errorf("exit code %d after %v, want 1", code, sig)
			}
			assertRemoved(t, tmp, dir)
		})
	}
}

func TestEndOfInputRemovesFolder(t *testing.T) {
	tmp := t.TempDir()
	cmd, stdin, dir := startChild(t, tmp)
	if _, err := io.WriteString(stdin, "show checkpoint --format json\n"); err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	if code := wait(t, cmd); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	assertRemoved(t, tmp, dir)
}

// TestKilledShellFolderRemoved: the shell process may end without its
// cleanup (the REPL leaves by os.Exit on a signal; kill -9): the supervising
// process removes the folder.
func TestKilledShellFolderRemoved(t *testing.T) {
	tmp := t.TempDir()
	cmd, stdin, dir := startChild(t, tmp)
	defer stdin.Close()
	pid := strconv.Itoa(cmd.Process.Pid)
	// Each thread lists the children it started.
	tasks, err := os.ReadDir("/proc/" + pid + "/task")
	if err != nil {
		t.Skipf("no /proc task list: %v", err)
	}
	var fields []string
	for _, task := range tasks {
		children, err := os.ReadFile("/proc/" + pid + "/task/" + task.Name() + "/children")
		if err != nil {
			t.Skipf("no /proc children list: %v", err)
		}
		fields = append(fields, strings.Fields(string(children))...)
	}
	if len(fields) != 1 {
		t.Fatalf("the supervisor has children %q, want the shell alone", fields)
	}
	shell, _ := strconv.Atoi(fields[0])
	if err := syscall.Kill(shell, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := wait(t, cmd); code != 1 {
		t.Errorf("exit code %d after the shell was killed, want 1", code)
	}
	assertRemoved(t, tmp, dir)
}
