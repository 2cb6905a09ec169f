# Write commands under least privilege (issue 24, case 2), against Debian's
# etcd with auth enabled: a root user, and a user "milvus" whose role may
# read and write the prefix by-dev/ only (how a Milvus etcd user is
# commonly scoped). As that user, reset checkpoint --run and restore --run
# write every key and verify ok: no read of the plan, the run or the verify
# (its revision, read-back, re-plan, guards) leaves the instance's root.
. "$(dirname "$0")/../lib.sh"

RC=0 OUT="" ERR=""
PASS=rbac-e2e-pass
as_milvus() { echo "connect --etcd $ETCD --rootPath by-dev --etcdUserName milvus --etcdPassword $PASS"; }

start_etcd
seed --wal pulsar --rootPath by-dev --mqtype >/dev/null || { echo "seeding failed" >&2; exit 1; }
dump --prefix by-dev/ >"$WORK/before.dump" || exit 1
enable_auth "$PASS"
ctl() { ETCDCTL_API=3 etcdctl --endpoints "$ETCD" --user "root:$PASS" "$@"; }
dump_root() { ctl get --prefix by-dev/ -w json >"$1" || exit 1; }

mkdir -p "$WORK/bk"
run_heron "$(as_milvus)
reset checkpoint --target-wal kafka --run --yes --backup-dir $WORK/bk"
expect_rc 0 "least privilege: reset checkpoint --run"
expect_out "wrote ([0-9]+) of \1 keys" "every key written"
expect_out "^verify: ok" "reset checkpoint verifies ok"
if printf '%s' "$OUT$ERR" | grep -qE "permission denied|verify: not run"; then fail "a read outside the root"; else pass "no permission denied, no 'verify: not run'"; fi

run_heron "$(as_milvus)
reset checkpoint --target-wal kafka"
expect_rc 0 "least privilege: the dry run after finds nothing to write"
expect_out '^rewrites \(in write order\):$' "the plan lists its rewrites"
if printf '%s' "$OUT" | grep -A1 '^rewrites (in write order):$' | grep -q '^  none$'; then pass "nothing left to rewrite"; else fail "the dry run after still rewrites keys"; fi

backup=$(ls "$WORK"/bk/heron-backup-by-dev-reset-*.jsonl | head -1)
run_heron "$(as_milvus)
restore --file $backup --run --yes --backup-dir $WORK/bk"
expect_rc 0 "least privilege: restore --run"
expect_out "^verify: (ok|no split state)" "restore verifies ok"
if printf '%s' "$OUT$ERR" | grep -qE "permission denied|verify: not run"; then fail "restore: a read outside the root"; else pass "restore: no permission denied, no 'verify: not run'"; fi
finish
