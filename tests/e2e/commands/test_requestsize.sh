# etcd measures a transaction whole against its --max-request-bytes (every
# op's key and value, the compares, the session guard's compares and reads,
# its raft header). Against a server started with a small limit (2048
# bytes), where every seeded value fits alone but the reset's keys together
# do not, heron told the server's limit splits the transactions to fit:
# the run writes every key and verifies, and its restore (the kit's own
# count) puts them back byte for byte, also in transactions that fit.
. "$(dirname "$0")/../lib.sh"
LIMIT=2048
# Seeded under etcd's default limit (the seed puts many keys at once), then
# etcd restarts on the same data with the small one.
start_etcd
BK=$WORK/backups
mkdir -p "$BK"
RC=0 OUT="" ERR=""
seed --wal pulsar --rootPath by-dev
dump >"$WORK/original.dump"
stop_etcd
start_etcd --max-request-bytes $LIMIT

run_heron "$(connect_line)
reset checkpoint --target-wal kafka --run --yes --max-request-bytes $LIMIT --backup-dir $BK"
expect_rc 0 "reset against a $LIMIT-byte request limit"
expect_out "wrote ([0-9]+) of \1 keys .* in ([2-9]|[1-9][0-9]+) transactions" "the keys go in several transactions"
expect_out "verify: ok" "the run verifies"
if printf '%s' "$ERR" | grep -q "too large"; then fail "etcd refused a transaction as too large"; else pass "no transaction over the limit"; fi
backup=$(backup_in_err)

run_heron "$(connect_line)
restore --file $backup --run --yes --max-request-bytes $LIMIT --backup-dir $BK"
expect_rc 0 "restore against a $LIMIT-byte request limit"
expect_out "verify: ok" "the restore verifies"
dump >"$WORK/restored.dump"
if cmp -s "$WORK/original.dump" "$WORK/restored.dump"; then pass "restore is byte-identical"; else fail "restore differs"; fi
finish
