# The rollback of a stopped reset, undone, against Debian's etcd, with
# bin/heron-failpoints (make build-failpoints): reset run A is stopped (a
# split state); restore of A rolls it back, and its backup R (the split
# values) records that it was taken of a split state and continues A.
# Restoring R puts the split state back and says so, naming A next (exit 0,
# not "another write changed the instance"); restoring A then gives the
# original dump byte for byte.
. "$(dirname "$0")/../lib.sh"
use_failpoints
seeded_instance

run_heron "$(connect_line)
reset checkpoint --target-wal kafka --max-txn-ops 4 --max-inflight 1 --run --backup-dir $BK" HERON_APPLY_FAIL_AFTER_TXNS=2
expect_rc 1 "run A stopped after 2 transactions"
A=$(backup_in_err)
expect_out "to roll it back: restore --file $A --run" "its STOPPED block names the rollback"
dump >"$WORK/split.dump"

HERON=$REPO/bin/heron
run_heron "$(connect_line)
restore --file $A --run --backup-dir $BK"
expect_rc 0 "the rollback: restore of A"
expect_out "verify: ok" "the rollback verifies"
R=$(backup_in_err)
expect_err "split state: this run continues $A; the backup of the original values is $A" "R says it continues A"
if python3 - "$R" "$A" <<'PY'
import json, sys
r, a = sys.argv[1:]
h = json.loads(open(r).readline())
assert h["split_state"] and h["continues"] == a and h["original_backup"] == a, h
PY
then pass "R's header records the chain"; else fail "R's header"; fi

run_heron "$(connect_line)
restore --file $R --run --backup-dir $WORK"
expect_rc 0 "the rollback undone: restore of R"
expect_out "verify: SPLIT STATE" "it says the split state is back"
expect_out "restore next: restore --file $A --run" "it names A to restore next"
if printf '%s' "$OUT$ERR" | grep -q "another write changed"; then fail "it blames another write"; else pass "it blames no other write"; fi
dump >"$WORK/undone.dump"
same "$WORK/split.dump" "$WORK/undone.dump" "the split state is back byte for byte"

run_heron "$(connect_line)
restore --file $A --run --backup-dir $WORK"
expect_rc 0 "restore of A"
expect_out "verify: ok" "A's restore verifies"
dump >"$WORK/restored.dump"
same "$WORK/original.dump" "$WORK/restored.dump" "restoring A gives the original byte for byte"
finish
