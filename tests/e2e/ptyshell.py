"""heron's REPL on a pseudo-terminal, for the e2e scripts that type into it
(test_repl.sh, test_question.sh, test_reset.sh). Run with
PYTHONPATH=$E2E_DIR (lib.sh)."""
import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time


class Terminal:
    """heron on a pty of rows x cols. heron leads its own session with the
    pty as its controlling terminal: a Ctrl-C byte written is a SIGINT to it
    from the line discipline. buf holds everything heron wrote; expect
    searches it from pos on."""

    def __init__(self, heron, env, cols=160, rows=40):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.p = subprocess.Popen([heron], stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                                  preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
                                  env=dict(os.environ, **env))
        os.close(slave)
        self.buf = b""
        self.pos = 0

    def pump(self, timeout):
        """Reads what heron wrote within timeout; False once the pty is
        closed (EOF, or EIO once heron is gone)."""
        r, _, _ = select.select([self.master], [], [], timeout)
        if r:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return False
            if not data:
                return False
            self.buf += data
        return True

    def expect(self, pattern, timeout=30):
        """Waits for pattern after pos: the match (pos moves past it), or
        None, saying on stderr what came instead."""
        end = time.time() + timeout
        rx = re.compile(pattern.encode())
        while True:
            m = rx.search(self.buf, self.pos)
            if m:
                self.pos = m.end()
                return m
            if time.time() >= end or not self.pump(min(0.2, max(0, end - time.time()))):
                m = rx.search(self.buf, self.pos)
                if m:
                    self.pos = m.end()
                    return m
                print("  timeout waiting for %r; last output: %r" % (pattern, self.buf[-800:]), file=sys.stderr)
                return None

    def write(self, data):
        os.write(self.master, data)

    def send(self, line):
        """Types line, then Enter: heron splits the keys of one read
        (framework/repl.go, splitKeys); the pause keeps them two reads as a
        typist's are."""
        self.write(line.encode())
        time.sleep(0.2)
        self.write(b"\r")

    def exited(self, timeout):
        """heron's exit code once it exited within timeout (None if not),
        with everything it wrote before read: what it wrote just before it
        exited may still sit in the pty, read until the pty is empty."""
        end = time.time() + timeout
        while time.time() < end:
            if self.p.poll() is not None:
                while True:
                    n = len(self.buf)
                    if not self.pump(0.5) or len(self.buf) == n:
                        break
                return self.p.returncode
            self.pump(0.1)
        return None

    def kill(self):
        """Ends heron if it still runs."""
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


class Checks:
    """ok/FAIL lines, each name after prefix; ok is False once one failed."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.ok = True

    def __call__(self, cond, name):
        print(("ok   - " if cond else "FAIL - ") + self.prefix + name, file=sys.stdout if cond else sys.stderr)
        self.ok = self.ok and bool(cond)
