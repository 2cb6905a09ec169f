# reset wal keeps the session guard like every write command (issue 24,
# case 1), against Debian's etcd, with bin/heron-failpoints throttled by
# HERON_APPLY_TXN_DELAY and --max-txn-ops 3 (one key a transaction beside
# the session guard's two compares): a datacoord session attached
# to a lease (etcdctl lease grant + put --lease, as a starting component
# registers) that lands mid `reset wal --target woodpecker --run --yes`
# fails the next transaction, exit 1, naming the session key, its
# role and lease, with the STOPPED block and no "verify: ok". The guard is
# the kit's (the instance's), not the command's: reset wal names none.
# (The re-check after the [y/N] question: test_question.sh, reset wal case.)
. "$(dirname "$0")/../lib.sh"

use_failpoints
RC=0 OUT="" ERR=""
ROOT=by-dev
SESSION=$ROOT/meta/session/datacoord
FIX=$REPO/states/resetwal/testdata
ctl() { ETCDCTL_API=3 etcdctl --endpoints "$ETCD" "$@"; }

start_etcd
seed --wal pulsar --rootPath "$ROOT" >/dev/null || { echo "seeding failed" >&2; exit 1; }
"$ETCDTOOL" wpseed --etcd "$ETCD" --file "$FIX/wp_milvus30.json" >/dev/null || { echo "wpseed failed" >&2; exit 1; }

mkdir -p "$WORK/bk"
printf '%s\n' "$(connect_line "$ROOT")" "reset wal --target woodpecker --run --yes --max-txn-ops 3 --backup-dir $WORK/bk" |
	HERON_APPLY_TXN_DELAY=500ms HERON_APPLY_CONCURRENCY=1 "$HERON" >"$WORK/out" 2>"$WORK/err" &
hpid=$!
for _ in $(seq 1 200); do
	[ -n "$(find "$WORK/bk" -name 'heron-backup-*.jsonl')" ] && break
	sleep 0.05
done
sleep 1
LEASE=$(ctl lease grant 300 | awk '/granted/ {print $2}')
ctl put --lease="$LEASE" "$SESSION" '{"ServerID":21,"ServerName":"datacoord","Address":"10.0.0.7:13333"}' >/dev/null || { echo "session put failed" >&2; exit 1; }
wait "$hpid"
RC=$?
OUT=$(cat "$WORK/out")
ERR=$(cat "$WORK/err")
expect_rc 1 "session mid reset wal: the run stops"
expect_err "a Milvus component is running: $SESSION \(datacoord, lease $LEASE\); stop it \(every component\).*stopped after [0-9]+ transactions" "the error names the session key, its role and lease"
expect_out "^STOPPED: [1-9][0-9]* of [0-9]+ keys written: the instance is split" "the STOPPED block"
expect_out "  a Milvus component is running: $SESSION \(datacoord, lease $LEASE\): stop it \(every component\) first" "the STOPPED block names the component"
if printf '%s' "$OUT" | grep -q "verify: ok"; then fail "verify: ok printed while a session holds a lease"; else pass "no verify: ok"; fi
left=$(dump --prefix "$ROOT/woodpecker/logs/" | grep -cE "^$ROOT/woodpecker/logs/by-dev-rootcoord-dml_[012](/|	)")
if [ "$left" -gt 0 ]; then pass "the run stopped before deleting every key ($left left)"; else RC=1 fail "every key was deleted under a live session"; fi

# While the lease lives, a re-run is refused before anything is written.
run_heron "$(connect_line "$ROOT")
reset wal --target woodpecker --run --yes --backup-dir $WORK/bk"
expect_rc 3 "session live: the re-run is refused"
expect_out "REFUSED +no live Milvus component" "the live-component gate refuses"

# The component stops: the re-run completes and verifies.
ctl lease revoke "$LEASE" >/dev/null || { echo "lease revoke failed" >&2; exit 1; }
run_heron "$(connect_line "$ROOT")
reset wal --target woodpecker --run --yes --backup-dir $WORK/bk"
expect_rc 0 "lease revoked: the re-run completes"
expect_out "verify: ok" "the re-run verifies ok"
finish
