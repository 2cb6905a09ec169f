# reset checkpoint --run under faults, against a real etcd server process,
# with bin/heron-failpoints (make build-failpoints):
# heron killed with SIGKILL early, in the middle and late (through the
# applier's HERON_APPLY_KILL_AFTER_* hooks, and from outside during a
# run held after its first transaction), each at --max-inflight 1 and 16; etcd stopped and killed in the middle of a run; a backup
# that cannot be written. Every interrupted run is reported as a split state,
# completed by a second run to a meta root byte-identical to that of an
# uninterrupted run, and rolled back by restore to a byte-identical original.
. "$(dirname "$0")/../lib.sh"

# The hooks are failpoints: only `make build-failpoints` compiles them in
# (build_tags.md). The release binary must have none of their symbols.
RELEASE=$HERON
use_failpoints
RC=0 OUT="" ERR=""
n=$(go tool nm "$RELEASE" | grep -ci failpoint)
if [ "$n" = 0 ]; then pass "the release binary has no failpoint symbol (go tool nm $RELEASE)"; else fail "the release binary has $n failpoint symbols"; fi
n=$(go tool nm "$HERON" | grep -ci failpoint)
if [ "$n" -gt 0 ]; then pass "the failpoints binary has its $n failpoint symbols"; else fail "the failpoints binary has no failpoint symbol"; fi

use_gen

# The instance: big enough for a few dozen transactions of 128 keys.
ROOT=by-dev
TARGET=woodpecker

# A frozen etcd must be thawed before lib.sh's cleanup can stop it.
trap '[ -z "$ETCD_PID" ] || kill -CONT "$ETCD_PID" 2>/dev/null; umount "$WORK/full" 2>/dev/null; cleanup' EXIT
PORT=$(free_port)
PEER=$(free_port)
etcd_up "$PORT" "$PEER" "$WORK/etcd"

revision() { "$GEN" count --etcd "$ETCD" --prefix "$ROOT/" | python3 -c 'import json,sys; print(json.load(sys.stdin)["revision"])'; }
# show_err: with E2E_VERBOSE=1, print the last stderr (to read the messages).
show_err() { [ -z "${E2E_VERBOSE:-}" ] || printf '  | %s\n' "$ERR"; }

# reset_run NAME [VAR=VALUE ...]: reset checkpoint --run with a backup in
# $WORK/bk-NAME, environment hooks given as arguments, --max-inflight
# $INFLIGHT when set; sets RC, OUT, ERR.
reset_run() {
	local name=$1
	shift
	rm -rf "$WORK/bk-$name"
	mkdir -p "$WORK/bk-$name"
	run_heron "$(connect_line "$ROOT")
reset checkpoint --target-wal $TARGET --run --format json --backup-dir $WORK/bk-$name${INFLIGHT:+ --max-inflight $INFLIGHT}" "$@"
}
backup_of() { find "$WORK/bk-$1" -maxdepth 1 -type f ! -name '.*' | head -1; }
# restore_from FILE: sets RC, OUT, ERR; the restore's own backup goes to
# $WORK/bk-restore, not the current folder (the repository).
restore_from() {
	mkdir -p "$WORK/bk-restore"
	run_heron "$(connect_line "$ROOT")
restore --file $1 --run --backup-dir $WORK/bk-restore"
}
json_field() { # json_field NAME: the first value of NAME anywhere in $OUT's JSON document
	printf '%s' "$OUT" | python3 -c '
import json, sys
text = sys.stdin.read()
i = text.find("{")
doc = json.JSONDecoder().raw_decode(text[i:])[0] if i >= 0 else {}
def walk(v):
    if isinstance(v, dict):
        if sys.argv[1] in v:
            return v[sys.argv[1]]
        for x in v.values():
            r = walk(x)
            if r is not None:
                return r
    elif isinstance(v, list):
        for x in v:
            r = walk(x)
            if r is not None:
                return r
    return None
r = walk(doc)
print(json.dumps(r) if not isinstance(r, (int, str)) else r)
' "$1"
}
# split_state: prints the number of pchannels show checkpoint reports split.
split_state() {
	run_heron "$(connect_line "$ROOT")
show checkpoint --format json"
	[ "$RC" -eq 0 ] || { echo "-1"; return; }
	printf '%s' "$OUT" | sed -n '/^{/,$p' | python3 -c 'import json,sys; print(len(json.load(sys.stdin).get("split_pchannels") or []))' 2>/dev/null || echo -1
}

start_all=$(date +%s)

# --- the reference: an uninterrupted run from the start ----------------
reseed
dump_to "$WORK/original"
reset_run ref
expect_rc 0 "uninterrupted reset checkpoint --run"
TXNS=$(json_field txns)
case "$TXNS" in '' | *[!0-9]*) TXNS=0 ;; esac
if [ "$TXNS" -ge 8 ]; then pass "the run took $TXNS transactions"; else fail "the run reported $TXNS transactions (want >= 8 to kill in between)"; TXNS=8; fi
REF_BACKUP=$(backup_of ref)
dump_to "$WORK/reference"
if cmp -s "$WORK/original" "$WORK/reference"; then fail "the run changed nothing"; else pass "the run changed the meta root"; fi
n=$(split_state)
if [ "$n" = 0 ]; then pass "after a complete run: no split state"; else fail "after a complete run: split_pchannels=$n"; fi
restore_from "$REF_BACKUP"
expect_rc 0 "restore --file (uninterrupted run's backup) --run"
dump_to "$WORK/restored"
same "$WORK/original" "$WORK/restored" "restore returns the meta root byte for byte to the original"

# --- SIGKILL at several points --------------------------------------------
# kill_case NAME SPLIT HOOK=VALUE: SPLIT is "yes" when the kill comes after
# the first write.
kill_case() {
	local name=$1 split=$2 hook=$3
	reseed
	dump_to "$WORK/start-$name"
	same "$WORK/original" "$WORK/start-$name" "$name: the reseeded start is the original"
	local rev0
	rev0=$(revision)
	reset_run "$name" "$hook"
	if [ "$RC" -eq 137 ] || [ "$RC" -eq 9 ]; then pass "$name: heron died of SIGKILL ($hook)"; else fail "$name: want death by SIGKILL ($hook)"; fi
	local backup
	backup=$(backup_of "$name")
	if [ -n "$backup" ]; then pass "$name: the backup was written before the kill"; else fail "$name: no backup"; fi
	local n
	n=$(split_state)
	if [ "$split" = yes ]; then
		if [ "$n" -gt 0 ] 2>/dev/null; then pass "$name: show checkpoint reports a split state ($n pchannels)"; else fail "$name: show checkpoint reports no split state (split_pchannels=$n)"; fi
	else
		dump_to "$WORK/killed-$name"
		same "$WORK/original" "$WORK/killed-$name" "$name: nothing was written"
		if [ "$(revision)" = "$rev0" ]; then pass "$name: etcd revision unchanged"; else fail "$name: etcd revision moved"; fi
		if [ "$n" = 0 ]; then pass "$name: no split state"; else fail "$name: split_pchannels=$n"; fi
	fi
	reset_run "$name-again"
	expect_rc 0 "$name: a second reset checkpoint --run completes"
	dump_to "$WORK/final-$name"
	same "$WORK/reference" "$WORK/final-$name" "$name: the final meta root is byte-identical to the uninterrupted run's"
	n=$(split_state)
	if [ "$n" = 0 ]; then pass "$name: no split state after the second run"; else fail "$name: split_pchannels=$n after the second run"; fi
	if [ -n "$backup" ]; then
		restore_from "$backup"
		expect_rc 0 "$name: restore --file (killed run's backup) --run"
		dump_to "$WORK/restored-$name"
		same "$WORK/original" "$WORK/restored-$name" "$name: restore returns the meta root byte for byte to the original"
	fi
}
kill_case "kill-before-first-write" no HERON_APPLY_KILL_AFTER_BACKUP=1
# Killed mid-write one transaction at a time and with as many in flight as
# --max-inflight allows (16: transactions of a phase commit in any order,
# and those in flight at the kill may or may not be applied): the same
# re-run and restore converge byte for byte.
for INFLIGHT in 1 16; do
	kill_case "kill-early-k$INFLIGHT" yes HERON_APPLY_KILL_AFTER_TXNS=1
	kill_case "kill-middle-k$INFLIGHT" yes HERON_APPLY_KILL_AFTER_TXNS=$((TXNS / 2))
	kill_case "kill-late-k$INFLIGHT" yes HERON_APPLY_KILL_AFTER_TXNS=$((TXNS - 1))

	# From outside: a run held after its first committed transaction
	# (HERON_APPLY_PAUSE=txn), killed there: mid-run whatever the machine's
	# load (a throttled run watched by polling finished before a loaded
	# machine's poll saw it write).
	reseed
	rm -rf "$WORK/bk-external" && mkdir -p "$WORK/bk-external"
	run_paused txn "reset checkpoint --target-wal $TARGET --run --backup-dir $WORK/bk-external --max-inflight $INFLIGHT"
	kill -KILL "$HPID" 2>/dev/null
	wait "$HPID" 2>/dev/null
	RC=$?
	OUT="" ERR=$(cat "$WORK/paused.err")
	if [ "$RC" -eq 137 ]; then pass "external kill -9 of a run held mid-write (--max-inflight $INFLIGHT)"; else fail "external kill (--max-inflight $INFLIGHT): heron was not killed mid-run (exit $RC)"; fi
	n=$(split_state)
	if [ "$n" -gt 0 ] 2>/dev/null; then pass "external kill (--max-inflight $INFLIGHT): split state reported ($n pchannels)"; else fail "external kill (--max-inflight $INFLIGHT): no split state (split_pchannels=$n)"; fi
	backup=$(backup_of external)
	reset_run "external-again-k$INFLIGHT"
	expect_rc 0 "external kill (--max-inflight $INFLIGHT): a second run completes"
	dump_to "$WORK/final-external"
	same "$WORK/reference" "$WORK/final-external" "external kill (--max-inflight $INFLIGHT): final meta root byte-identical to the uninterrupted run's"
	restore_from "$backup"
	expect_rc 0 "external kill (--max-inflight $INFLIGHT): restore --file (killed run's backup) --run"
	dump_to "$WORK/restored-external"
	same "$WORK/original" "$WORK/restored-external" "external kill (--max-inflight $INFLIGHT): restore returns the meta root byte for byte to the original"
done
INFLIGHT=""

# --- etcd stops in the middle of a run --------------------------------------
# etcd_fault NAME SIGNAL: a run held after its first committed transaction
# (HERON_APPLY_PAUSE=txn); etcd gets SIGNAL (STOP: frozen, TERM: gone), then
# the run goes on: heron must fail with exit 1 and a clear message within its
# timeouts; etcd comes back and a re-run completes.
etcd_fault() {
	local name=$1 sig=$2
	reseed
	rm -rf "$WORK/bk-$name" && mkdir -p "$WORK/bk-$name"
	run_paused txn "reset checkpoint --target-wal $TARGET --run --backup-dir $WORK/bk-$name" HERON_APPLY_STALL_TIMEOUT=3s HERON_APPLY_TXN_TIMEOUT=3s
	kill "-$sig" "$ETCD_PID"
	local t0 t1
	t0=$(date +%s)
	resume
	t1=$(date +%s)
	expect_rc 1 "$name: heron fails when etcd stops mid-run"
	show_err
	expect_err "error: .*(etcd|answer|reach|timeout|deadline|unavailable)" "$name: the error says etcd stopped answering"
	expect_err "re-run|run it again|again" "$name: the error says to re-run"
	if [ $((t1 - t0)) -le 12 ]; then pass "$name: failed within $((t1 - t0))s of etcd stopping"; else fail "$name: took $((t1 - t0))s after etcd stopped"; fi
	if [ "$sig" = STOP ]; then
		kill -CONT "$ETCD_PID"
	else
		wait "$ETCD_PID" 2>/dev/null
		etcd_up "$PORT" "$PEER" "$WORK/etcd"
	fi
	reset_run "$name-again"
	expect_rc 0 "$name: once etcd is back, a re-run completes"
	dump_to "$WORK/final-$name"
	same "$WORK/reference" "$WORK/final-$name" "$name: final meta root byte-identical to the uninterrupted run's"
}
etcd_fault "etcd-frozen" STOP
etcd_fault "etcd-restarted" TERM

# --- a backup that cannot be written ------------------------------------------
reseed
rev0=$(revision)
: >"$WORK/not-a-dir"
run_heron "$(connect_line "$ROOT")
reset checkpoint --target-wal $TARGET --run --backup-dir $WORK/not-a-dir"
if [ "$RC" -ne 0 ]; then pass "backup dir is a file: refused (exit $RC)"; else fail "backup dir is a file: want a failure"; fi
show_err
expect_err "not-a-dir" "backup dir is a file: the error names it"
if [ "$(revision)" = "$rev0" ]; then pass "backup dir is a file: etcd revision unchanged"; else fail "backup dir is a file: etcd was written"; fi

run_heron "$(connect_line "$ROOT")
reset checkpoint --target-wal $TARGET --run --backup-dir /proc/self"
if [ "$RC" -ne 0 ]; then pass "backup dir not writable even by root (/proc/self): refused (exit $RC)"; else fail "/proc/self: want a failure"; fi
show_err
if [ "$(revision)" = "$rev0" ]; then pass "unwritable backup dir: etcd revision unchanged"; else fail "unwritable backup dir: etcd was written"; fi

# No space left: a tiny tmpfs, where root may mount one.
mkdir -p "$WORK/full"
if mount -t tmpfs -o size=64k tmpfs "$WORK/full" 2>/dev/null; then
	run_heron "$(connect_line "$ROOT")
reset checkpoint --target-wal $TARGET --run --backup-dir $WORK/full"
	umount "$WORK/full"
	if [ "$RC" -ne 0 ]; then pass "no space for the backup: refused (exit $RC)"; else fail "no space for the backup: want a failure"; fi
	show_err
	if [ "$(revision)" = "$rev0" ]; then pass "no space for the backup: etcd revision unchanged"; else fail "no space for the backup: etcd was written"; fi
else
	echo "skip - no space for the backup (cannot mount a tmpfs here)"
fi

echo "test_faults: $(( $(date +%s) - start_all ))s"
finish
