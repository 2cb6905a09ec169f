# Two write commands racing (issue 24, case 4), against Debian's etcd, with
# bin/heron-failpoints: run B (reset checkpoint --target-wal woodpecker)
# reads its plan and is held there (HERON_APPLY_PAUSE=scan) while run A
# (reset checkpoint --target-wal kafka) completes. B, released, fails its
# first compare: it wrote nothing, so it says "nothing was written" (exit
# 3), never STOPPED or "split", gives no advice to complete (which would
# switch A's finished instance to woodpecker) or roll back, and removes its
# backup (no change of it to restore or chain to); the instance is A's.
# Then a run that wrote some keys when another writer changed one it had
# yet to write: STOPPED names the key and refuses both ways out.
. "$(dirname "$0")/../lib.sh"

use_failpoints
RC=0 OUT="" ERR=""
ROOT=by-dev

start_etcd
seed --wal pulsar --rootPath "$ROOT" --mqtype >/dev/null || { echo "seeding failed" >&2; exit 1; }
mkdir -p "$WORK/bk-a" "$WORK/bk-b" "$WORK/bk-c"

# --- B held after reading its plan, A completes -----------------------------------
run_paused scan "reset checkpoint --target-wal woodpecker --run --yes --backup-dir $WORK/bk-b"
run_heron "$(connect_line "$ROOT")
reset checkpoint --target-wal kafka --run --yes --backup-dir $WORK/bk-a"
expect_rc 0 "run A completes while B is held"
dump_to "$WORK/a.dump"
resume
expect_rc 3 "run B, which lost the race, is refused"
expect_out "^reset checkpoint to woodpecker: nothing was written \(0 of [0-9]+ keys\): key $ROOT/.* changed since the plan was read" "B says nothing was written, naming the key"
expect_err "error: reset checkpoint: nothing was written: .*another writer \(another heron run, or Milvus\) moved the instance on" "B's error says another writer moved the instance on"
if printf '%s\n%s' "$OUT" "$ERR" | grep -qE "^STOPPED|split|to complete it|to roll it back|restore --file [^<]"; then fail "B advises a way out of a change it did not make"; else pass "no STOPPED, no split, no advice to complete or roll back"; fi
if [ -z "$(ls -A "$WORK/bk-b")" ]; then pass "B's backup (of no change of B) is removed"; else fail "B left a backup: $(ls "$WORK/bk-b")"; fi
expect_err "removed: this run changed no key" "B says why its backup is removed"
dump_to "$WORK/b.dump"
if cmp -s "$WORK/a.dump" "$WORK/b.dump"; then pass "the instance is A's, byte for byte"; else fail "B changed the instance"; fi

# --- a run that wrote some keys, then another writer changed one -------------------
# C (to woodpecker) writes one key a transaction; once its first
# transaction is in (HERON_APPLY_PAUSE=txn holds it there), another writer
# puts the last key of its backup.
run_paused txn "reset checkpoint --target-wal woodpecker --run --yes --max-txn-ops 3 --backup-dir $WORK/bk-c" HERON_APPLY_CONCURRENCY=1
LAST=$(python3 -c 'import json,sys; print([json.loads(l)["key"] for l in open(sys.argv[1]) if "\"key\"" in l][-1])' "$(find "$WORK/bk-c" -name 'heron-backup-*.jsonl')")
ctl put "$LAST" "another writer's" >/dev/null || { echo "put failed" >&2; exit 1; }
resume
expect_rc 1 "C stops on the key another writer changed"
expect_out "^STOPPED: [1-9][0-9]* of [0-9]+ keys written, then the instance moved on through another writer: do not start Milvus\.$" "C's STOPPED block says what happened"
expect_out "^  $LAST was changed by another writer since the plan read it" "the STOPPED block names the key"
expect_out "^  no way out is advised: .*read the instance first: reset checkpoint --target-wal woodpecker, then show checkpoint$" "no way out advised; the commands that read the instance"
if printf '%s' "$OUT" | grep -qE "to complete it|to roll it back"; then fail "C advises a way out over another writer's change"; else pass "no advice to complete or roll back"; fi
finish
