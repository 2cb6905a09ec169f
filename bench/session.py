"""session.py HERON CONNECT COMMAND OUT [ETCD_PID]: times COMMAND in a heron
session that CONNECT opened, from the moment connect was done (the version
after it out) to heron's exit: its process start and its connect are not
the command's. Prints seconds, peak RSS in KB, the exit code, and the CPU
seconds (user and system) heron and etcd (ETCD_PID, when given) used in that
time; the command's stdout goes to OUT."""
import json
import os
import resource
import subprocess
import sys
import threading
import time

TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid):
    """The CPU seconds process pid has used (/proc/pid/stat utime + stime)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def main():
    heron, connect, command, out = sys.argv[1:5]
    etcd = int(sys.argv[5]) if len(sys.argv) > 5 else 0
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
    heron0 = cpu_of(p.pid)
    etcd0 = cpu_of(etcd) if etcd else 0
    start = time.monotonic()
    p.stdin.write((command + "\n").encode())
    p.stdin.close()
    # stderr (progress lines) read beside stdout: a full pipe would stall heron.
    errs = []
    reader = threading.Thread(target=lambda: errs.append(p.stderr.read()))
    reader.start()
    stdout = p.stdout.read()
    reader.join()
    err = errs[0]
    # Exited, not yet reaped: its /proc/PID/stat holds its final CPU.
    os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
    seconds = time.monotonic() - start
    heron_cpu = cpu_of(p.pid) - heron0
    etcd_cpu = cpu_of(etcd) - etcd0 if etcd else 0
    p.wait()
    with open(out, "wb") as sink:
        sink.write(stdout)
    if p.returncode not in (0, 3):
        sys.stderr.write(err.decode(errors="replace")[-2000:])
    # heron is the only child this process waited for.
    maxrss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(f"{seconds:.3f} {maxrss} {p.returncode} {heron_cpu:.2f} {etcd_cpu:.2f}")


if __name__ == "__main__":
    main()
