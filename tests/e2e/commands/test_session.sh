# A Milvus component that starts while heron writes (issue 17, item 1),
# against Debian's etcd, with bin/heron-failpoints (make build-failpoints)
# held after its first transaction by HERON_APPLY_PAUSE=txn: a datacoord
# session attached to a lease (etcdctl lease grant + put --lease, as a
# starting component registers) that lands mid-write stops the run between transactions,
# naming the session key, its role and its lease, with the STOPPED block
# (which names the key heron wrote that the component wrote over) and no
# "verify: ok"; while the lease lives a re-run is refused; once it
# is revoked, a re-run completes, verifies ok, and leaves the meta root
# byte for byte as an uninterrupted run does.
. "$(dirname "$0")/../lib.sh"

use_failpoints
if [ ! -x "$ETCDTOOL" ]; then
	(cd "$REPO" && CGO_ENABLED=0 go build -o "$ETCDTOOL" ./tests/e2e/etcdtool) || { echo "test_session: cannot build etcdtool" >&2; exit 1; }
fi
RC=0 OUT="" ERR=""
ROOT=by-dev
SESSION=$ROOT/meta/session/datacoord
reseed() {
	ctl del --prefix "$ROOT/" >/dev/null || exit 1
	seed --wal pulsar --rootPath "$ROOT" --mqtype >/dev/null || { echo "seeding failed" >&2; exit 1; }
}
dump_to() { dump --prefix "$ROOT/meta/" >"$1" || { echo "dump failed" >&2; exit 1; }; } # the meta root only
reset_run() { # reset_run BACKUP_DIR: the reset in script mode; sets RC, OUT, ERR
	mkdir -p "$1"
	run_heron "$(connect_line "$ROOT")
reset checkpoint --target-wal kafka --run --backup-dir $1"
}

start_etcd

# --- the reference: an uninterrupted run ------------------------------------
reseed
reset_run "$WORK/bk-ref"
expect_rc 0 "reference: an uninterrupted reset checkpoint --run"
dump_to "$WORK/reference"

# --- a session appears mid-write ------------------------------------------------
# Two keys a transaction, one in flight; the run holds after its first
# transaction (HERON_APPLY_PAUSE=txn) while the component starts.
reseed
mkdir -p "$WORK/bk-mid"
run_paused txn "reset checkpoint --target-wal kafka --run --max-txn-ops 4 --max-inflight 1 --backup-dir $WORK/bk-mid"
# The component writes its old checkpoint back over the first key heron
# wrote (the backup's first entry: its first transaction's), and registers
# its session (the guard, compared by every transaction, stops the run).
OVER=$(python3 -c 'import json,sys; e=json.loads(open(sys.argv[1]).readlines()[1]); print(e["key"])' "$(find "$WORK/bk-mid" -name 'heron-backup-*.jsonl')")
python3 -c 'import base64,json,sys; sys.stdout.buffer.write(base64.b64decode(json.loads(open(sys.argv[1]).readlines()[1])["value"]))' "$(find "$WORK/bk-mid" -name 'heron-backup-*.jsonl')" |
	ctl put "$OVER" >/dev/null || { echo "overwrite failed" >&2; exit 1; }
register_session "$SESSION"
resume
expect_session_stop "session mid-write" "$SESSION"
expect_out "^  1 key the run wrote no longer holds its bytes \(the running component wrote over them\): $OVER$" "the STOPPED block names the written key the component wrote over"
expect_out "to roll it back: restore --file $WORK/bk-mid/heron-backup-" "the STOPPED block names the restore"
written=$(printf '%s' "$OUT" | sed -n 's/^STOPPED: \([0-9]*\) of \([0-9]*\) keys.*/\1 \2/p')
# shellcheck disable=SC2086
set -- $written
if [ "${1:-0}" -gt 0 ] && [ "${1:-0}" -lt "${2:-0}" ]; then pass "stopped mid-write ($1 of $2 keys)"; else fail "not a stop mid-write: '$written'"; fi

# While the lease lives, a re-run is refused before anything is written.
before=$(rev)
reset_run "$WORK/bk-mid"
expect_rc 3 "session live: the re-run is refused"
expect_out "REFUSED +no live Milvus component" "the live-component gate refuses"
after=$(rev)
if [ "$before" = "$after" ]; then pass "refused: etcd revision unchanged"; else fail "refused: etcd revision moved"; fi

# The component stops: its lease is revoked (its session key goes with it).
ctl lease revoke "$LEASE" >/dev/null || { echo "lease revoke failed" >&2; exit 1; }
reset_run "$WORK/bk-mid"
expect_rc 0 "lease revoked: the re-run completes"
expect_out "verify: ok" "the re-run verifies ok"
dump_to "$WORK/completed"
same "$WORK/reference" "$WORK/completed" "byte for byte the uninterrupted run's meta root"
finish
