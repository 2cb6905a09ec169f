# A stopped apply --file, against Debian's etcd with bin/heron-failpoints:
# its STOPPED block gives a completing command that works (the recorded
# command, not the plan file, whose keys changed), that run continues the
# apply's backup (which holds the original values) in the chain, restore
# names the chain, and restoring it newest first gives the original bytes.
. "$(dirname "$0")/../lib.sh"
use_failpoints
seeded_instance

P=$WORK/plan.jsonl
run_heron "$(connect_line)
reset checkpoint --target-wal kafka --plan-out $P"
expect_rc 0 "plan saved"
run_heron "$(connect_line)
apply --file $P --max-txn-ops 4 --run --yes --backup-dir $BK" HERON_APPLY_CONCURRENCY=1 HERON_APPLY_FAIL_AFTER_TXNS=2
expect_rc 1 "the apply stopped after 2 transactions"
A=$(backup_in_err)
expect_out "to complete it: +reset checkpoint --target-wal kafka --run --backup-dir $BK" "STOPPED names the recorded command to complete it"

HERON=$REPO/bin/heron
run_heron "$(connect_line)
apply --file $P --run --yes --backup-dir $BK"
expect_rc 3 "the plan itself is refused now (its keys changed)"
run_heron "$(connect_line)
reset checkpoint --target-wal kafka --run --yes --backup-dir $BK"
expect_rc 0 "the completing command completes"
C=$(backup_in_err)
expect_err "split state: this run continues $A; the backup of the original values is $A" "it continues the apply's backup, which holds the original values"
run_heron "$(connect_line)
restore --file $C --format json"
expect_rc 0 "restore plan of the completing run"
if printf '%s' "$OUT" | python3 -c 'import json,sys; s=json.load(sys.stdin); a,c=sys.argv[1:]; assert s["chain"]==[c,a] and s["original_backup"]==a, s' "$A" "$C"; then
	pass "restore lists the chain: the completing run's backup, then the apply's"
else fail "the plan's chain"; fi
for f in "$C" "$A"; do
	run_heron "$(connect_line)
restore --file $f --run --yes --backup-dir $WORK"
	expect_rc 0 "restore of $(basename "$f")"
done
dump >"$WORK/restored.dump"
if cmp -s "$WORK/original.dump" "$WORK/restored.dump"; then pass "the chain restored newest first gives the original byte for byte"; else fail "the restored dump differs"; fi
finish
