# The REPL interrupted during a real `reset checkpoint --run`, against a real
# etcd server, with bin/heron-failpoints (make build-failpoints) throttled by
# HERON_APPLY_TXN_DELAY so that the run is still writing when the signal
# comes, on a pseudo-terminal driven by python3's pty module (issue 9, item 1):
#   - Ctrl-C (the byte \x03 typed on the terminal, a SIGINT from the line
#     discipline): the run stops between transactions and says what it wrote
#     and how to complete or roll back; the prompt comes back and the next
#     line runs clean (no ^C bytes, nor a half line typed during the run,
#     glued to it); `exit` exits 0;
#   - two Ctrl-Cs in quick succession (the second once the first is
#     acknowledged, with 1s transactions so that the run is still stopping):
#     the second only says the run is still stopping, the shell survives;
#   - SIGTERM to heron: the run stops the same way, then the shell exits 1.
# After each: a script-mode re-run completes the run to the meta root of an
# uninterrupted run and verifies ok, and restore of the interrupted run's
# backup returns the meta root byte for byte to the original.
. "$(dirname "$0")/../lib.sh"

use_failpoints
use_gen
if [ ! -x "$ETCDTOOL" ]; then
	(cd "$REPO" && CGO_ENABLED=0 go build -o "$ETCDTOOL" ./tests/e2e/etcdtool) || { echo "test_repl: cannot build etcdtool" >&2; exit 1; }
fi
RC=0 OUT="" ERR=""

# The instance: about 3400 keys, some 27 transactions of 128 keys; at 200ms
# a transaction (two in flight) the run writes for about five seconds.
ROOT=by-dev
TARGET=woodpecker
DELAY=${REPL_TXN_DELAY:-200ms}

start_etcd
backup_of() { find "$1" -maxdepth 1 -type f -name 'heron-backup-*' | head -1; }
# reset_script DIR: the reset in script mode (no throttle); sets RC, OUT, ERR.
reset_script() {
	mkdir -p "$1"
	run_heron "$(connect_line "$ROOT")
reset checkpoint --target-wal $TARGET --run --backup-dir $1"
}
# restore_from FILE: sets RC, OUT, ERR; the restore's own backup goes to
# $WORK/bk-restore, not the current folder (the repository).
restore_from() {
	mkdir -p "$WORK/bk-restore"
	run_heron "$(connect_line "$ROOT")
restore --file $1 --run --backup-dir $WORK/bk-restore"
}

start_all=$(date +%s)

# --- the reference: an uninterrupted run, then rolled back ----------------
reseed
dump_to "$WORK/original"
reset_script "$WORK/bk-ref"
expect_rc 0 "reference: an uninterrupted reset checkpoint --run"
dump_to "$WORK/reference"
if cmp -s "$WORK/original" "$WORK/reference"; then RC=1 OUT="" ERR="" fail "reference: the run changed nothing"; else pass "reference: the run changed the meta root"; fi
restore_from "$(backup_of "$WORK/bk-ref")"
expect_rc 0 "reference: restore --run"
dump_to "$WORK/restored-ref"
same "$WORK/original" "$WORK/restored-ref" "reference: restore returns the original byte for byte"

# --- the terminal driver ---------------------------------------------------
cat >"$WORK/repl.py" <<'PY'
# repl.py MODE HERON CONNECT BACKUP_DIR HOME: one interrupted run on a pty.
# MODE: ctrlc (one Ctrl-C), ctrlc2 (two in quick succession), sigterm.
# Prints ok/FAIL lines; exits 1 when a check failed.
import os, re, signal, sys, time
import ptyshell

mode, heron, connect, bk, home = sys.argv[1:6]
delay = os.environ.get("REPL_TXN_DELAY", "200ms")
delay_s = float(delay[:-2]) / 1000 if delay.endswith("ms") else float(delay.rstrip("s"))
# The throttle sleeps in the writer's AfterTxn hook, under the writer's lock
# (framework/apply/apply.go, writer.commit): the two transactions in flight
# finish one throttle after the other, so a stop takes up to three of them,
# plus what a loaded machine adds (measured: 0.3-0.9 s beside the other e2e
# scripts; CI runs the race tests beside them): 5 s of slack. The rest of
# the run would take (27 - 3) throttles: that it stopped short is the check
# "stopped between transactions" (fewer keys than the plan's).
stop_limit = 3 * delay_s + 5
t = ptyshell.Terminal(heron, {"HOME": home, "HERON_APPLY_TXN_DELAY": delay})
check = ptyshell.Checks(mode + ": ")

PROMPT = r"Milvus\(by-dev\) > "
check(t.expect(r"Offline > "), "the REPL prompts")
t.send(connect)
check(t.expect(PROMPT), "connected")
time.sleep(0.3)
t.send("reset checkpoint --target-wal woodpecker --run --yes --backup-dir " + bk)
# Progress on stderr (the pty): wait until two transactions are written.
written = 0
while written < 256:
    m = t.expect(r"write: (\d+)/(\d+) keys", 60)
    if not m:
        break
    written = int(m.group(1))
check(written >= 256, "the run is writing (%d keys written when interrupted)" % written)
if mode == "ctrlc":
    # A half line typed while the run writes must not reach the next prompt.
    t.write(b"show col")
    time.sleep(0.1)
before = len(t.buf)
t0 = time.time()
if mode == "sigterm":
    t.p.send_signal(signal.SIGTERM)
else:
    t.write(b"\x03")
    if mode == "ctrlc2":
        # The second as soon as the first is acknowledged: the run is then
        # still in its transactions' throttle (1s each, see interrupted_case),
        # and two signals sent at once could merge into one.
        check(t.expect(r"interrupted: the command stops", 10), "the first Ctrl-C is acknowledged")
        t.write(b"\x03")

m = t.expect(r"stopped after (\d+) transactions, (\d+) of (\d+) keys written", 30)
took = time.time() - t0
check(m, "the run stops and says what it wrote")
if m:
    txns, done, total = int(m.group(1)), int(m.group(2)), int(m.group(3))
    check(0 < done < total, "stopped between transactions: %d of %d keys in %d transactions" % (done, total, txns))
    check(took < stop_limit, "stopped %.1fs after the signal (limit %.1fs)" % (took, stop_limit))
tail = t.buf[before:]
check(re.search(rb"interrupted: the command stops", tail), "the interrupt is acknowledged")
if mode == "ctrlc2":
    check(re.search(rb"still stopping", tail), "the second Ctrl-C says the run is still stopping")
check(re.search(rb"re-run heron to complete", tail), "the message says how to complete (re-run)")
check(re.search(rb"restore --file \S*heron-backup-\S+ --run", tail), "the message says how to roll back (restore --file BACKUP --run)")
check(re.search(rb"verify: not run", tail), "verify is not claimed for a stopped run")

if mode == "sigterm":
    rc = t.exited(30)
    check(rc == 1, "after SIGTERM the shell exits 1, once the run stopped (exit %r)" % rc)
    check(re.search(rb"leaving the shell", t.buf[before:]), "and says it is leaving")
else:
    check(t.expect(PROMPT, 30), "the prompt comes back")
    check(t.p.poll() is None, "the shell survives")
    time.sleep(0.3)
    after = len(t.buf)
    t.send("show session")
    check(t.expect(r"session\(s\)", 30), "the next line (show session) runs")
    typed = t.buf[after:t.pos]
    check(b"unknown command" not in typed and b"error:" not in typed and b"show colshow" not in typed,
          "nothing is glued to it (no error: %r)" % typed[-200:] if b"error:" in typed else "nothing is glued to it")
    check(t.expect(PROMPT, 30), "the prompt comes back after it")
    time.sleep(0.3)
    t.send("exit")
    rc = t.exited(30)
    check(rc == 0, "exit exits 0 (exit %r)" % rc)
t.kill()
sys.exit(0 if check.ok else 1)
PY

# interrupted_case MODE: an interrupted run on the pty, completed by a script
# run, rolled back by restore of the interrupted run's backup.
interrupted_case() {
	local mode=$1 backup
	reseed
	dump_to "$WORK/start-$mode"
	same "$WORK/original" "$WORK/start-$mode" "$mode: the reseeded start is the original"
	mkdir -p "$WORK/bk-$mode" "$WORK/home-$mode"
	local delay=$DELAY
	[ "$mode" != ctrlc2 ] || delay=${REPL_TXN_DELAY2:-1s}
	if REPL_TXN_DELAY=$delay PYTHONPATH=$E2E_DIR python3 "$WORK/repl.py" "$mode" "$HERON" "$(connect_line "$ROOT")" "$WORK/bk-$mode" "$WORK/home-$mode" >"$WORK/pty.out" 2>&1; then
		pass "$mode: the interrupted run on the terminal"
	else
		RC=1 OUT=$(grep -v '^ok' "$WORK/pty.out") ERR=""
		fail "$mode: the interrupted run on the terminal"
	fi
	grep '^ok' "$WORK/pty.out" | sed 's/^/  /'
	if [ "$mode" != sigterm ]; then
		local hist=$WORK/home-$mode/.heron/history
		if grep -qx 'show session' "$hist" 2>/dev/null && ! LC_ALL=C grep -q '[[:cntrl:]]' "$hist"; then
			pass "$mode: the history holds the line typed after the interrupt as typed, no control byte"
		else
			RC=1 OUT=$(cat -v "$hist" 2>&1 | tail -5) ERR="" fail "$mode: the history file ($hist)"
		fi
	fi
	backup=$(backup_of "$WORK/bk-$mode")
	if [ -n "$backup" ]; then pass "$mode: the backup was written"; else RC=1 OUT="" ERR="" fail "$mode: no backup in $WORK/bk-$mode"; fi
	dump_to "$WORK/stopped-$mode"
	if cmp -s "$WORK/original" "$WORK/stopped-$mode" || cmp -s "$WORK/reference" "$WORK/stopped-$mode"; then
		RC=1 OUT="" ERR="" fail "$mode: the stopped run left the original or the complete state (want a partial write)"
	else
		pass "$mode: the stopped run left a partial write"
	fi
	reset_script "$WORK/bk-$mode-again"
	expect_rc 0 "$mode: a second reset checkpoint --run (script mode) completes"
	expect_out "verify: ok" "$mode: and verifies ok"
	dump_to "$WORK/final-$mode"
	same "$WORK/reference" "$WORK/final-$mode" "$mode: the completed meta root is byte-identical to the uninterrupted run's"
	[ -n "$backup" ] || return
	restore_from "$backup"
	expect_rc 0 "$mode: restore --file (the interrupted run's backup) --run"
	dump_to "$WORK/restored-$mode"
	same "$WORK/original" "$WORK/restored-$mode" "$mode: restore returns the meta root byte for byte to the original"
}
interrupted_case ctrlc
interrupted_case ctrlc2
interrupted_case sigterm

echo "test_repl: $(($(date +%s) - start_all))s"
finish
