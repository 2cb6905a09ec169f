# etcd compacting its history during a run (issue 17, item 5), against
# Debian's etcd, with bin/heron-failpoints (make build-failpoints): its
# HERON_APPLY_PAUSE hook holds the run at a point (creates a file, waits
# until the script removes it) while the script writes elsewhere and runs
# `etcdctl compact <current revision>`, as another writer and etcd's
# compactor do.
#   during the plan (after its first page, read at the plan's revision): the
#   plan is read again once, automatically, saying why and that nothing was
#   written; the run completes and verifies;
#   during the verify (after it fixed the revision it reads the keys back
#   at, another writer having written during the run): the verify reads
#   again at the current revision and reports ok.
#   through a run and its verify, an unrelated writer and etcd's compactor
#   at revision-1000 every 100 ms (etcdtool storm, issue 24 case 3).
# Never `verify: FAILED`, never etcd's bare "mvcc: required revision has
# been compacted"; every run leaves the root byte for byte as an
# uninterrupted run does.
. "$(dirname "$0")/../lib.sh"

use_failpoints
use_gen
RC=0 OUT="" ERR=""
ROOT=by-dev
same_as_reference() { # same_as_reference NAME
	dump_to "$WORK/got.dump"
	same "$WORK/reference.dump" "$WORK/got.dump" "$1: byte for byte the uninterrupted run's keys"
}
never_raw() { # never_raw NAME: no FAILED verify, etcd's error only inside heron's explanation
	if printf '%s\n%s' "$OUT" "$ERR" | grep -q "verify: FAILED"; then fail "$1: verify: FAILED"; else pass "$1: no verify: FAILED"; fi
	if printf '%s\n%s' "$OUT" "$ERR" | grep "required revision has been compacted" | grep -vq "etcd compacted its history past revision"; then
		fail "$1: etcd's bare compaction error"
	else pass "$1: no bare 'mvcc: required revision has been compacted'"; fi
}
# paused_run NAME POINT [VAR=VALUE...]: starts reset --run held at POINT
# (HERON_APPLY_PAUSE), with the flags $RUN_FLAGS; returns once it is held
# (as long as the failpoint holds, a minute: lib.sh's wait_pause), or fails
# the script; resume (lib.sh) lets it go on. With WRITE_DURING=1 another
# writer puts a key once the backup is published.
paused_run() {
	local name=$1 point=$2 written=""
	shift 2
	mkdir -p "$WORK/bk-$name"
	rm -f "$WORK/pause"
	printf '%s\n' "$(connect_line "$ROOT")" "reset checkpoint --target-wal woodpecker --run --backup-dir $WORK/bk-$name${RUN_FLAGS:+ $RUN_FLAGS}" |
		env HERON_APPLY_PAUSE="$point:$WORK/pause" "$@" "$HERON" >"$WORK/paused.out" 2>"$WORK/paused.err" &
	HPID=$!
	for _ in $(seq 1 1200); do
		[ -e "$WORK/pause" ] && return 0
		if [ -n "${WRITE_DURING:-}" ] && [ -z "$written" ] && [ -n "$(find "$WORK/bk-$name" -name 'heron-backup-*.jsonl')" ]; then
			ctl put other-writer/during "$name" >/dev/null || exit 1
			written=1
		fi
		kill -0 "$HPID" 2>/dev/null || break
		sleep 0.05
	done
	wait "$HPID"
	echo "test_compact: $name never reached $point (exit $?): $(cat "$WORK/paused.err")" >&2
	exit 1
}
compact_now() { # compact_now: another writer moves the revision on, then etcd compacts to it
	ctl put other-writer/tick "$1" >/dev/null || exit 1
	COMPACTED=$(rev)
	ctl compact "$COMPACTED" >/dev/null || { echo "compact failed" >&2; exit 1; }
}

start_etcd

# --- the reference: an uninterrupted run ----------------------------------
reseed
mkdir -p "$WORK/bk-ref"
run_heron "$(connect_line "$ROOT")
reset checkpoint --target-wal woodpecker --run --backup-dir $WORK/bk-ref"
expect_rc 0 "reference: an uninterrupted reset"
dump_to "$WORK/reference.dump"

# --- compaction during the plan ----------------------------------------------
reseed
paused_run plan scan
compact_now plan
resume
expect_rc 0 "compacted during the plan: the run completes"
expect_err "^note: (read [^ ]+: )?etcd compacted its history past revision [0-9]+ while heron read at it .*; nothing was written: reading the plan again at the current revision" "the plan is read again once, saying nothing was written"
if [ "$(printf '%s' "$ERR" | grep -c '^note: .*etcd compacted')" = 1 ]; then pass "read again once"; else fail "not read again exactly once"; fi
planrev=$(printf '%s' "$OUT" | sed -n '1s/.*, read at revision \([0-9]*\)$/\1/p')
if [ -n "$planrev" ] && [ "$planrev" -ge "$COMPACTED" ]; then pass "the plan shown was read at revision $planrev, past the compaction ($COMPACTED)"; else
	fail "the plan shown was read at revision '$planrev', not past the compaction ($COMPACTED)"
fi
expect_out "^verify: ok" "verify: ok"
if [ "$(find "$WORK/bk-plan" -name 'heron-backup-*.jsonl' | wc -l)" = 1 ]; then pass "one backup (the first read staged none)"; else fail "backups: $(ls "$WORK/bk-plan")"; fi
never_raw "plan"
same_as_reference "plan"

# --- compaction during the verify ---------------------------------------------
# A throttled run (about 3 s of writes); another writer writes once the
# backup is published, so the verify reads the keys back (it cannot prove
# them by the run's revisions alone); it is held once it fixed its revision.
reseed
WRITE_DURING=1 RUN_FLAGS="--max-inflight 1" paused_run verify read-back HERON_APPLY_TXN_DELAY=100ms
compact_now verify
resume
expect_rc 0 "compacted during the verify: the run completes"
expect_out "^verify: ok, the [0-9]+ keys written read back at revision [0-9]+ hold the planned bytes \(keys-only read" "verify: ok, read back"
vrev=$(printf '%s' "$OUT" | sed -n 's/^verify: ok, the [0-9]* keys written read back at revision \([0-9]*\) .*/\1/p')
if [ -n "$vrev" ] && [ "$vrev" -ge "$COMPACTED" ]; then pass "the verify read again at revision $vrev, past the compaction ($COMPACTED)"; else
	fail "the verify's revision '$vrev' is not past the compaction ($COMPACTED)"
fi
never_raw "verify"
same_as_reference "verify"

# --- compaction during the verify's re-plan (issue 24, case 3) -----------------
# The keys read back (another writer wrote), the re-plan is held once it
# read its first key at its revision: etcd compacts past it; the re-plan
# reads again at the current revision and the verify reports ok.
reseed
WRITE_DURING=1 paused_run replan replan HERON_APPLY_TXN_DELAY=100ms HERON_APPLY_CONCURRENCY=1
compact_now replan
resume
expect_rc 0 "compacted during the re-plan: the run completes"
expect_out "^verify: ok, the [0-9]+ keys written read back at revision [0-9]+ hold the planned bytes" "verify: ok after the re-plan read again"
never_raw "replan"
same_as_reference "replan"

# --- etcd compacts past every re-plan ------------------------------------------
# Each re-plan (HERON_APPLY_PAUSE_EVERY) is held once it read its first key,
# and etcd compacts past its revision meanwhile (as a busy writer and
# --auto-compaction-retention do to a long re-plan): none completes. The
# write completed: never an error of the write, never "verify: not run";
# the verify says what it proved, what it could not read and why, and the
# commands that check again.
reseed
WRITE_DURING=1 paused_run busy replan HERON_APPLY_TXN_DELAY=100ms HERON_APPLY_CONCURRENCY=1 HERON_APPLY_PAUSE_EVERY=1
for _ in 1 2 3; do
	wait_pause "$WORK/pause" "$HPID"
	compact_now busy
	rm -f "$WORK/pause"
done
resume
expect_rc 1 "compacted past every re-plan: the verify is incomplete"
expect_out "^verify: INCOMPLETE, the run's keys were written; the [0-9]+ keys written read back hold the planned bytes" "the verify says what it proved"
expect_out "^  could not read: planning again could not read the instance: etcd compacted its history past the revision it read at, 3 times" "the verify names what it could not read and why"
expect_out "^  check again with: reset checkpoint --target-wal woodpecker, then show checkpoint" "the verify names the commands that check again"
expect_err "verify incomplete: the run's keys were written" "the error says the write completed"
expect_out "wrote ([0-9]+) of \1 keys" "compacted past every re-plan: every key written"
if printf '%s' "$OUT" | grep -q "verify: not run"; then fail "compacted past every re-plan: verify: not run"; else pass "compacted past every re-plan: no 'verify: not run'"; fi
same_as_reference "busy"

# --- an unrelated writer and etcd's compactor through the run (issue 24, case 3)
# From the backup on, 16 goroutines put keys outside the root and etcd is
# compacted to its revision less 1000 every 100 ms (etcdtool storm: Milvus's
# --auto-compaction-mode revision --auto-compaction-retention 1000), through
# a throttled run and its verify. The verify reads again past each
# compaction: ok, or INCOMPLETE naming what it could not read (exit 1);
# never etcd's bare error; the root as an uninterrupted run leaves it.
reseed
mkdir -p "$WORK/bk-storm"
printf '%s\n' "$(connect_line "$ROOT")" "reset checkpoint --target-wal woodpecker --run --max-inflight 1 --backup-dir $WORK/bk-storm" |
	env HERON_APPLY_TXN_DELAY=150ms "$HERON" >"$WORK/out" 2>"$WORK/err" &
HPID=$!
for _ in $(seq 1 600); do
	[ -n "$(find "$WORK/bk-storm" -name 'heron-backup-*.jsonl')" ] && break
	kill -0 "$HPID" 2>/dev/null || break
	sleep 0.05
done
"$ETCDTOOL" storm --etcd "$ETCD" --prefix other-writer/storm/ >"$WORK/storm.out" 2>/dev/null &
SPID=$!
wait "$HPID"
RC=$?
kill -TERM "$SPID"
wait "$SPID"
OUT=$(cat "$WORK/out")
ERR=$(cat "$WORK/err")
storm=$(cat "$WORK/storm.out")
[ -z "${E2E_VERBOSE:-}" ] || printf '  | %s\n' "$storm" "$OUT" "$ERR"
planrev=$(printf '%s' "$OUT" | sed -n '1s/.*, read at revision \([0-9]*\)$/\1/p')
last=$(printf '%s' "$storm" | sed -n 's/.* the last to revision \([0-9]*\)$/\1/p')
if [ -n "$planrev" ] && [ -n "$last" ] && [ "$last" -gt "$planrev" ]; then pass "storm: etcd compacted past the plan's revision ($storm)"; else
	fail "storm: etcd did not compact past the plan's revision $planrev ($storm)"
fi
if [ "$RC" = 0 ] && printf '%s' "$OUT" | grep -q "^verify: ok"; then pass "storm: the run completes, verify: ok (exit 0)"
elif [ "$RC" = 1 ] && printf '%s' "$OUT" | grep -q "^verify: INCOMPLETE, the run's keys were written" &&
	printf '%s' "$OUT" | grep -q "^  could not read: " && printf '%s' "$OUT" | grep -q "^  check again with: "; then
	pass "storm: the run completes, verify: INCOMPLETE naming what it could not read (exit 1, as documented)"
else fail "storm: neither verify: ok (exit 0) nor verify: INCOMPLETE (exit 1)"; fi
expect_out "wrote ([0-9]+) of \1 keys" "storm: every key written"
never_raw "storm"
same_as_reference "storm"
finish
