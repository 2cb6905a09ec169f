# An interrupted reset wal is chained (issue 24, case 5; issue 27, item 3),
# against Debian's etcd, with bin/heron-failpoints: run A, one key a
# transaction, stops after 3 transactions (some per-log keys deleted, every
# LogMeta still there); re-run B finds the log A stopped inside, says it
# continues A's backup, completes, and its last reminder names the whole
# chain, newest first. Restoring B alone says the chain is not done (never
# a plain "verify: ok"); restoring B then A gives the original keys byte
# for byte.
. "$(dirname "$0")/../lib.sh"
use_failpoints
RC=0 OUT="" ERR=""
FIX=$REPO/states/resetwal/testdata
start_etcd
seed --wal pulsar --rootPath by-dev >/dev/null || { echo "seeding failed" >&2; exit 1; }
"$ETCDTOOL" wpseed --etcd "$ETCD" --file "$FIX/wp_milvus30.json" >/dev/null || { echo "wpseed failed" >&2; exit 1; }
dump >"$WORK/original.dump"
BK=$WORK/backups
mkdir -p "$BK" "$WORK/rbk"

run_heron "$(connect_line)
reset wal --target woodpecker --max-txn-ops 3 --run --yes --backup-dir $BK" HERON_APPLY_CONCURRENCY=1 HERON_APPLY_FAIL_AFTER_TXNS=3
expect_rc 1 "run A stopped after 3 transactions"
A=$(backup_in_err)
[ -n "$A" ] || { echo "no backup of A: $ERR" >&2; exit 1; }

run_heron "$(connect_line)
reset wal --target woodpecker --run --yes --backup-dir $BK"
expect_rc 0 "re-run B completes"
B=$(backup_in_err)
expect_out "an earlier reset wal stopped inside these logs: its backup $A holds the keys it deleted" "B's plan says it continues A"
expect_err "split state: this run continues $A" "B's backup continues A"
expect_out "^verify: ok" "B verifies ok"
expect_out "^reminder: keep the backup files of the chain: .*restore newest first: restore --file $B --run, then restore --file $A --run$" "B's last reminder names the chain, newest first"

run_heron "$(connect_line)
restore --file $B --run --yes --backup-dir $WORK/rbk"
expect_rc 0 "restore of B alone"
expect_out "restore them newest first: restore --file $B --run, then restore --file $A --run" "restore's plan names the chain"
expect_out "^verify: CHAIN, the keys of the backup hold their backed-up state, but this backup continues $A.*restore next: restore --file $A --run" "restore of B alone says to restore A next"
if printf '%s' "$OUT" | grep -q "^verify: ok"; then fail "restore of B alone says verify: ok"; else pass "no plain verify: ok"; fi

run_heron "$(connect_line)
restore --file $A --run --yes --backup-dir $WORK/rbk"
expect_rc 0 "restore of A"
dump >"$WORK/restored.dump"
if cmp -s "$WORK/original.dump" "$WORK/restored.dump"; then pass "restoring B then A gives the original keys byte for byte"; else
	RC=1 ERR=$(diff "$WORK/original.dump" "$WORK/restored.dump" | head -5)
	fail "the restored keys differ from the original"
fi
finish
