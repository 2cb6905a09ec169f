# The repairs against Debian's etcd with bin/heron-failpoints: schemas lost
# from three vchannels' recovery storage (the 2.6.0 "vchannel has no schemas
# in recovery info" panic). check fails and names `repair wal-recovery-storage`;
# a --run SIGKILLed after its first transaction leaves part of the keys
# written; the same command, run again as check printed it, plans only the
# rest and completes; check's item is ok; the two backups restored newest
# first give the original instance back byte for byte.
. "$(dirname "$0")/../lib.sh"
use_failpoints
start_etcd
seed --wal kafka --rootPath by-dev
M=by-dev/meta/streamingnode-meta/wal
for v in by-dev-rootcoord-dml_0/vchannel/by-dev-rootcoord-dml_0_100v0 by-dev-rootcoord-dml_1/vchannel/by-dev-rootcoord-dml_1_100v1 by-dev-rootcoord-dml_1/vchannel/by-dev-rootcoord-dml_1_200v0; do
	ctl del --prefix "$M/$v/schema/" >/dev/null || exit 1
done
dump_to "$WORK/original.dump"
BK=$WORK/backups
mkdir -p "$BK"

run_heron "$(connect_line)
check --format json"
expect_out '"item": "recovery-storage"' "check has the recovery-storage item"
expect_out '"repair wal-recovery-storage"' "its FAIL carries the repair's command"
FIX=$(printf '%s' "$OUT" | python3 -c 'import json,sys
for it in json.load(sys.stdin)["items"]:
    if it["item"] == "recovery-storage": print(it["commands"][0])')
[ "$FIX" = "repair wal-recovery-storage" ] && pass "the command is whole: $FIX" || fail "command: '$FIX'"

run_heron "$(connect_line)
$FIX --max-txn-ops 3 --max-inflight 1 --backup-dir $BK --run" HERON_APPLY_KILL_AFTER_TXNS=1
expect_rc 137 "the repair is killed (SIGKILL) after its first transaction"
LEFT=$(ctl get --prefix "$M/" --keys-only | grep -c '/schema/')
[ "$LEFT" -eq 2 ] && pass "one of the three schemas was written before the kill" || fail "$LEFT schema keys after the kill, want 2"

run_heron "$(connect_line)
$FIX --backup-dir $BK"
expect_rc 0 "the dry run after the kill"
expect_out "^create .*/schema/0$" "it plans the schemas still missing"
N=$(printf '%s\n' "$OUT" | grep -c '^create ')
[ "$N" -ge 1 ] && [ "$N" -lt 3 ] && pass "only the rest: $N of 3" || fail "the re-plan creates $N keys"

run_heron "$(connect_line)
$FIX --backup-dir $BK --run"
expect_rc 0 "the same command completes"
expect_out "verify: ok" "and verifies"
run_heron "$(connect_line)
check --format json"
printf '%s' "$OUT" | python3 -c 'import json,sys
items = {it["item"]: it for it in json.load(sys.stdin)["items"]}
sys.exit(0 if items["recovery-storage"]["verdict"] == "ok" else 1)' && pass "check's recovery-storage item is ok" || fail "recovery-storage still fails"

# Roll back: the completing run's backup, then the killed run's.
for f in $(ls -1 "$BK"/heron-backup-*.jsonl | sort -r); do
	run_heron "$(connect_line)
restore --file $f --backup-dir $WORK --run"
	expect_rc 0 "restore $(basename "$f")"
done
dump_to "$WORK/after.dump"
if cmp -s "$WORK/original.dump" "$WORK/after.dump"; then pass "the backups restored give the original instance back"; else fail "the dump differs after the restores"; fi
finish
