"""session.py HERON CONNECT COMMAND OUT: times COMMAND in a heron session
that CONNECT opened, from the moment connect was done (the version after it
out) to heron's exit: its process start and its connect are not the
command's. Prints seconds, peak RSS in KB and the exit code; the command's
stdout goes to OUT."""
import json
import os
import resource
import subprocess
import sys
import time


def main():
    heron, connect, command, out = sys.argv[1:5]
    p = subprocess.Popen([heron], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdin.write((connect + "\nversion --format json\n").encode())
    p.stdin.flush()
    # heron runs its input's lines in turn: once the version is out (a JSON
    # document, maybe in several writes), the connect (its split-state hint
    # too) is done.
    version = b""
    while True:
        chunk = os.read(p.stdout.fileno(), 1 << 16)
        version += chunk
        try:
            json.loads(version)
            break
        except ValueError:
            if not chunk:
                p.kill()
                sys.exit("session: connect failed: " + p.stderr.read().decode(errors="replace")[-2000:])
    start = time.monotonic()
    stdout, err = p.communicate((command + "\n").encode())
    seconds = time.monotonic() - start
    with open(out, "wb") as sink:
        sink.write(stdout)
    if p.returncode not in (0, 3):
        sys.stderr.write(err.decode(errors="replace")[-2000:])
    # heron is the only child this process waited for.
    print(f"{seconds:.3f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss} {p.returncode}")


if __name__ == "__main__":
    main()
