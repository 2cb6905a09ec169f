#!/usr/bin/env python3
"""make readme-transcript: the README's "A short session", regenerated.

Runs `heron demo` with piped input, one command of scripts/readme-session.txt
at a time, and prints the transcript indented for Markdown: the demo's start
line, then each command after the prompt with its output (stdout and stderr
in the order they were written). After each command it sends
`version --format line`, whose "heron=" line marks the end of the command's
output and is not printed. The --run writes its backup into a temporary
working folder, removed at the end. Usage: readme_transcript.py HERON [SESSION_FILE]
"""
import os
import subprocess
import sys
import tempfile

PROMPT = "Milvus(by-dev) > "
MARKER = "version --format line"


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    heron = os.path.abspath(sys.argv[1])
    session = sys.argv[2] if len(sys.argv) == 3 else "scripts/readme-session.txt"
    with open(session) as f:
        commands = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    # The --run's backup file goes to the working folder: a temporary one.
    workdir = tempfile.TemporaryDirectory(prefix="heron-readme-")
    proc = subprocess.Popen([heron, "demo"], cwd=workdir.name, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, bufsize=1)
    out = ["$ heron demo"]
    try:
        out.append(proc.stdout.readline().rstrip("\n"))  # demo: embedded etcd at ...
        for cmd in commands:
            out.append(PROMPT + cmd)
            proc.stdin.write(cmd + "\n" + MARKER + "\n")
            proc.stdin.flush()
            while True:
                line = proc.stdout.readline()
                if not line:
                    # Script mode stops at the first failing command (a
                    # refusal too): print what ran, then say so.
                    rc = proc.wait(timeout=60)
                    print_transcript(out)
                    sys.exit("readme-transcript: heron exited %d after %r: the commands after it were not run" % (rc, cmd))
                if line.startswith("heron="):
                    break
                out.append(line.rstrip("\n"))
        out.append(PROMPT + "exit")
        proc.stdin.close()
        rc = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        workdir.cleanup()
    print_transcript(out)
    if rc != 0:
        sys.exit("readme-transcript: heron demo exited %d" % rc)


def print_transcript(lines):
    for line in lines:
        print(("    " + line).rstrip())


if __name__ == "__main__":
    main()
