# reset wal keeps the session guard like every write command (issue 24,
# case 1), against Debian's etcd, with bin/heron-failpoints held after its
# first transaction by HERON_APPLY_PAUSE=txn and --max-txn-ops 3 (one key a
# transaction beside the session guard's two compares): a datacoord session
# attached to a lease (etcdctl lease grant + put --lease, as a starting
# component registers) that lands mid `reset wal --target woodpecker --run
# --yes` fails the next transaction, exit 1, naming the session key, its
# role and lease, with the STOPPED block and no "verify: ok". The guard is
# the kit's (the instance's), not the command's: reset wal names none.
# (The re-check after the [y/N] question: test_question.sh, reset wal case.)
. "$(dirname "$0")/../lib.sh"

use_failpoints
RC=0 OUT="" ERR=""
ROOT=by-dev
SESSION=$ROOT/meta/session/datacoord
FIX=$REPO/states/resetwal/testdata

start_etcd
seed --wal pulsar --rootPath "$ROOT" >/dev/null || { echo "seeding failed" >&2; exit 1; }
"$ETCDTOOL" wpseed --etcd "$ETCD" --file "$FIX/wp_milvus30.json" >/dev/null || { echo "wpseed failed" >&2; exit 1; }

mkdir -p "$WORK/bk"
# The run holds after its first transaction (HERON_APPLY_PAUSE=txn) while
# the component starts.
run_paused txn "reset wal --target woodpecker --run --yes --max-txn-ops 3 --backup-dir $WORK/bk" HERON_APPLY_CONCURRENCY=1
register_session "$SESSION"
resume
expect_session_stop "session mid reset wal" "$SESSION"
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
