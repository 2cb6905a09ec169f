# The backup chain against Debian's etcd, with bin/heron-failpoints (make
# build-failpoints): reset run A is stopped, re-run B (which finds the split
# state) is stopped, re-run C completes. B and C name A as the backup of the
# original values and record the chain; restore of C says the order (newest
# first); restoring C, then B leaves a split state, which each says instead
# of "verify: ok", naming the backup to restore next; restoring A then gives
# the original dump byte for byte.
. "$(dirname "$0")/../lib.sh"
use_failpoints
seeded_instance

# stopped_run N: reset --run stopped after N transactions.
stopped_run() {
	run_heron "$(connect_line)
reset checkpoint --target-wal kafka --max-txn-ops 4 --max-inflight 1 --run --backup-dir $BK" HERON_APPLY_FAIL_AFTER_TXNS="$1"
}

stopped_run 2
expect_rc 1 "run A stopped after 2 transactions"
A=$(backup_in_err)
expect_err "backup of the original values: $A" "A names its own backup as the original values"

stopped_run 3
expect_rc 1 "run B (of the split state) stopped after 3 transactions"
B=$(backup_in_err)
expect_err "split state: this run continues $A; the backup of the original values is $A" "B says it continues A"
expect_err "backup of the original values: $A;" "B's error names A as the backup of the original values"
if printf '%s' "$ERR" | grep -q "backup of the original values: $B"; then fail "B calls its own backup the original values"; else pass "B does not call its own backup the original values"; fi
expect_err "restore --file $B --run, then restore --file $A --run" "B's error gives the order, newest first"

HERON=$REPO/bin/heron
run_heron "$(connect_line)
reset checkpoint --target-wal kafka --run --backup-dir $BK"
expect_rc 0 "run C completes"
C=$(backup_in_err)
expect_err "split state: this run continues $B; the backup of the original values is $A" "C says it continues B, and A holds the original values"
if python3 - "$C" "$A" "$B" <<'PY'
import json, sys
c, a, b = sys.argv[1:]
h = json.loads(open(c).readline())
assert h["split_state"] and h["continues"] == b and h["original_backup"] == a, h
PY
then pass "C's header records the chain"; else fail "C's header"; fi

run_heron "$(connect_line)
restore --file $C --format json"
expect_rc 0 "restore plan of C"
if printf '%s' "$OUT" | python3 -c 'import json,sys; s=json.load(sys.stdin); a,b,c=sys.argv[1:]; assert s["chain"]==[c,b,a] and s["original_backup"]==a, s' "$A" "$B" "$C"; then
	pass "the plan of C lists the chain C, B, A"
else fail "the plan's chain"; fi

for step in "$C:$B" "$B:$A"; do
	f=${step%%:*}
	next=${step#*:}
	run_heron "$(connect_line)
restore --file $f --run --backup-dir $WORK"
	expect_rc 0 "restore of $(basename "$f")"
	expect_out "verify: SPLIT STATE" "it says the split state remains"
	expect_out "restore next: restore --file $next --run" "it names the backup to restore next"
	if printf '%s' "$OUT" | grep -q "verify: ok"; then fail "a split state reported as verify: ok"; else pass "no verify: ok over a split state"; fi
done
run_heron "$(connect_line)
restore --file $A --run --backup-dir $WORK"
expect_rc 0 "restore of A"
expect_out "verify: ok" "A's restore verifies"
dump >"$WORK/restored.dump"
same "$WORK/original.dump" "$WORK/restored.dump" "the chain restored newest first gives the original byte for byte"
finish
