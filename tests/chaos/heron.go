package chaos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Bins are the heron binaries a run drives: the release build (dry runs,
// the commands printed to recover, the restores) and the failpoints build
// (the runs faults are injected into; HERON_APPLY_BREAK makes it a
// deliberately broken one).
type Bins struct {
	Heron      string
	Failpoints string
}

// heronRun is one heron process: its exit code, output and, when stdout
// held one, its JSON document.
type heronRun struct {
	rc     int
	stdout string
	stderr string
	doc    runDoc
	show   showDoc
	hung   bool
	// fault is the fault injected into the run (FaultNone for a
	// recovery's or a dry run's).
	fault Fault
}

// showDoc is what the checker reads of show checkpoint's JSON: what it
// names for a split instance.
type showDoc struct {
	CompleteCommand  string   `json:"complete_command"`
	RollbackCommands []string `json:"rollback_commands"`
}

// runDoc is what the checker reads of a write command's JSON document.
type runDoc struct {
	Refused bool `json:"refused"`
	Plan    *struct {
		Refused bool `json:"refused"`
	} `json:"plan"`
	Applied *struct {
		Written int64  `json:"written"`
		Backup  string `json:"backup"`
	} `json:"applied"`
	Verify  *verifyDoc `json:"verify"`
	Stopped *struct {
		Written  int64    `json:"written"`
		Complete string   `json:"complete"`
		RollBack string   `json:"roll_back"`
		MovedOn  string   `json:"moved_on"`
		Again    []string `json:"check_again"`
	} `json:"stopped"`
	Unwritten string `json:"nothing_written"`
}

// verifyDoc is a run document's verify.
type verifyDoc struct {
	OK    bool     `json:"ok"`
	Again []string `json:"check_again"`
}

// proc is a heron process started, not yet waited for.
type proc struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan struct{}
	err    error
	timer  *time.Timer
	hung   atomic.Bool
}

// startHeron pipes "connect" and line into bin (wrapped by wrap, e.g.
// prlimit) in dir, with env added.
func startHeron(bin string, wrap []string, dir string, endpoints []string, line string, env []string) (*proc, error) {
	args := append(append([]string{}, wrap...), bin)
	p := &proc{cmd: exec.Command(args[0], args[1:]...), done: make(chan struct{})}
	p.cmd.Dir = dir
	p.cmd.Env = append(append(os.Environ(), "HERON_HOME="+dir, "TERM=dumb"), env...)
	p.cmd.Stdin = strings.NewReader("connect --etcd " + strings.Join(endpoints, ",") + " --rootPath " + rootPath + "\n" + line + "\n")
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	dieWithParent(p.cmd)
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	// A heron that does not end in 3 minutes is hung: a violation.
	p.timer = time.AfterFunc(3*time.Minute, func() {
		p.hung.Store(true)
		_ = p.cmd.Process.Kill()
	})
	go func() {
		p.err = p.cmd.Wait()
		p.timer.Stop()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) exited() bool { return closed(p.done) }

// wait waits for the process and reads what it printed.
func (p *proc) wait() heronRun {
	<-p.done
	r := heronRun{stdout: p.stdout.String(), stderr: p.stderr.String(), hung: p.hung.Load()}
	var ee *exec.ExitError
	switch {
	case p.err == nil:
	case errors.As(p.err, &ee):
		r.rc = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.rc = 128 + int(ws.Signal())
		}
	default:
		r.rc = -1
	}
	// The connect prints nothing on stdout; the command's document is the
	// first JSON value there.
	if i := strings.IndexByte(r.stdout, '{'); i >= 0 {
		_ = json.NewDecoder(strings.NewReader(r.stdout[i:])).Decode(&r.doc)
		_ = json.NewDecoder(strings.NewReader(r.stdout[i:])).Decode(&r.show)
	}
	return r
}

// runHeron runs one heron process to its end.
func runHeron(ctx context.Context, bin, dir string, endpoints []string, line string, env ...string) (heronRun, error) {
	p, err := startHeron(bin, nil, dir, endpoints, line, env)
	if err != nil {
		return heronRun{}, err
	}
	go func() {
		select {
		case <-ctx.Done():
			_ = p.cmd.Process.Kill()
		case <-p.done:
		}
	}()
	return p.wait(), nil
}

// wroteNothing: the run says, for certain, that it wrote no key: its
// document's nothing_written, or an error line saying "nothing was
// written" (a compaction's note that the plan is read again says it too,
// of the plan's read: a note, not the run's outcome).
func (r heronRun) wroteNothing() bool {
	if r.doc.Unwritten != "" {
		return true
	}
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(l, "error: ") && strings.Contains(l, "nothing was written") {
			return true
		}
	}
	return false
}

// summary is the run for a violation's text: its exit code and the last
// lines of stderr.
func (r heronRun) summary() string {
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) > 4 {
		lines = lines[len(lines)-4:]
	}
	return "exit " + itoa(r.rc) + "; stderr: " + strings.Join(lines, " | ")
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
