# A Milvus component that starts while the shell waits at the [y/N]
# question (issue 17, item 1), against Debian's etcd, on a pseudo-terminal
# driven by python3's pty module (as test_repl.sh): reset checkpoint --run
# in the REPL asks; while it waits, a datacoord session attached to a lease
# appears (etcdctl lease grant + put --lease, as a starting component
# registers); the operator answers y. The gates are read again after the
# answer: the run is refused naming the session key, its role and lease;
# nothing is written (etcd's revision and the meta root unchanged, no backup
# published) and the prompt comes back. Once the lease is revoked the same
# command, answered y, completes and verifies ok.
. "$(dirname "$0")/../lib.sh"

RC=0 OUT="" ERR="" LEASE="" BEFORE=""
ROOT=by-dev
SESSION=$ROOT/meta/session/datacoord

start_etcd
seed --wal pulsar --rootPath "$ROOT" --mqtype >/dev/null || { echo "seeding failed" >&2; exit 1; }

# question.py HERON CONNECT COMMAND MARK: runs COMMAND in the REPL, waits
# for the [y/N] question, creates MARK.asked and waits until MARK.go exists
# (the script acts on etcd meanwhile), answers y, waits for the prompt,
# exits the REPL. Writes the whole terminal output to MARK.out.
cat >"$WORK/question.py" <<'PY'
import os, sys, time
import ptyshell

heron, connect, command, mark = sys.argv[1:5]
t = ptyshell.Terminal(heron, {"HOME": os.path.dirname(mark)}, cols=200)

def expect(pattern, timeout=20):
    if not t.expect(pattern, timeout):
        sys.exit("timeout waiting for %r" % pattern)

try:
    PROMPT = r"Milvus\(by-dev\) > "
    expect(r"Offline > ")
    t.send(connect)
    expect(PROMPT)
    time.sleep(0.3)
    t.send(command)
    expect(r"apply these \d+ key changes to \S+\? \[y/N\] ", 60)
    open(mark + ".asked", "w").close()
    for _ in range(1200):
        if os.path.exists(mark + ".go"):
            break
        time.sleep(0.05)
    else:
        sys.exit("the script never said go")
    t.write(b"y\r")
    expect(PROMPT, 30)
    t.send("exit")
    t.exited(10)
finally:
    t.kill()
    while t.pump(0.1):
        pass
    open(mark + ".out", "wb").write(t.buf)
PY

# ask RUN SESSION_ACTION [COMMAND]: COMMAND (the reset by default) asked on
# the terminal; at the question SESSION_ACTION runs; sets OUT (the
# terminal) and RC (the driver's exit).
ask() {
	local mark=$WORK/$1
	mkdir -p "$WORK/bk-$1"
	PYTHONPATH=$E2E_DIR python3 "$WORK/question.py" "$HERON" "$(connect_line "$ROOT")" \
		"${3:-reset checkpoint --target-wal kafka} --run --backup-dir $WORK/bk-$1" "$mark" 2>"$WORK/err" &
	local ppid=$!
	for _ in $(seq 1 1200); do
		[ -e "$mark.asked" ] && break
		kill -0 "$ppid" 2>/dev/null || break
		sleep 0.05
	done
	if [ -e "$mark.asked" ]; then $2; fi
	touch "$mark.go"
	wait "$ppid"
	RC=$?
	ERR=$(cat "$WORK/err")
	OUT=$(tr -d '\r' <"$mark.out" 2>/dev/null)
}

# --- a session appears at the question ----------------------------------------
dump --prefix "$ROOT/" >"$WORK/before.dump" || exit 1
session_appears() {
	register_session "$SESSION"
	BEFORE=$(rev)
}
ask at-question session_appears
expect_rc 0 "the terminal session ran (question asked, answered y, prompt back)"
expect_out "refused after the question, nothing was written: .*a Milvus component is running: $SESSION \(datacoord, lease $LEASE\)" "refused after the answer, naming the session, its role and lease"
if printf '%s' "$OUT" | grep -qE "^backup: |verify: ok|keys written"; then fail "a refused run wrote or published a backup"; else pass "no backup, no write, no verify"; fi
if [ "$(rev)" = "$BEFORE" ]; then pass "etcd revision unchanged since the session appeared"; else fail "etcd revision moved: $BEFORE -> $(rev)"; fi
dump --prefix "$ROOT/" | grep -v "^$SESSION	" >"$WORK/after.dump"
if cmp -s "$WORK/before.dump" "$WORK/after.dump"; then pass "the meta root byte for byte as before (but the session key)"; else fail "the refused run changed keys"; fi
if [ -z "$(find "$WORK/bk-at-question" -name 'heron-backup-*')" ]; then pass "no backup file left"; else fail "a backup file was left"; fi

# --- the component stops: the same command completes -------------------------
ctl lease revoke "$LEASE" >/dev/null || { echo "lease revoke failed" >&2; exit 1; }
ask after-revoke true
expect_rc 0 "lease revoked: the terminal session ran"
expect_out "verify: ok" "answered y with no component live: the run completes and verifies ok"

# --- reset wal: the same re-check after the question (issue 24, case 1) -------
"$ETCDTOOL" wpseed --etcd "$ETCD" --file "$REPO/states/resetwal/testdata/wp_milvus30.json" >/dev/null || { echo "wpseed failed" >&2; exit 1; }
dump --prefix "$ROOT/" >"$WORK/before-wal.dump" || exit 1
ask wal-at-question session_appears "reset wal --target woodpecker"
expect_rc 0 "reset wal: the terminal session ran"
expect_out "reset wal refused after the question, nothing was written: .*a Milvus component is running: $SESSION \(datacoord, lease $LEASE\)" "reset wal: refused after the answer, naming the session"
if [ "$(rev)" = "$BEFORE" ]; then pass "reset wal: etcd revision unchanged since the session appeared"; else fail "reset wal: etcd revision moved: $BEFORE -> $(rev)"; fi
if [ -z "$(find "$WORK/bk-wal-at-question" -name 'heron-backup-*')" ]; then pass "reset wal: no backup file left"; else fail "reset wal: a backup file was left"; fi
ctl lease revoke "$LEASE" >/dev/null || { echo "lease revoke failed" >&2; exit 1; }
finish
