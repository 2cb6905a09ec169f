# A segment value of 5 MiB (real binlog entries appended to a seeded
# SegmentInfo) against Debian's etcd: heron assumes etcd's default request
# limit (1.5 MiB), so the plan is refused (exit 3, nothing written, no
# backup), naming the key and --max-request-bytes (issue 24, case 6); with
# --max-request-bytes 16777216, as the server runs, the run succeeds (the op
# goes alone in its transaction, through the client's send limit) and
# restore rolls it back byte for byte; told 16777216 by an operator while
# the server runs with its default, the run stops naming the key and the
# limit, before the consume checkpoints (the last phase), which stay
# untouched (the big segment is in the first transaction: nothing is
# written, and no backup is left).
. "$(dirname "$0")/../lib.sh"
start_etcd --max-request-bytes 16777216
BK=$WORK/backups
mkdir -p "$BK"
seed --wal pulsar --rootPath by-dev
RC=0 OUT="" ERR=""

BIG=$(dump --prefix by-dev/meta/datacoord-meta/s/ | head -1 | cut -f1)
[ -n "$BIG" ] || { echo "no segment seeded" >&2; exit 1; }
# grow BIG to over 5 MiB; the appended bytes' hex in $WORK/tail.hex.
python3 "$E2E_DIR/growsegment.py" "$ETCD" "$BIG" $((5 * 1024 * 1024 + 4096)) "$WORK/tail.hex" || { echo "cannot grow $BIG" >&2; exit 1; }
size=$(dump --prefix "$BIG" | cut -f2 | awk '{print length($0)/2}')
if [ "$size" -gt $((5 * 1024 * 1024)) ]; then pass "$BIG holds $size bytes"; else fail "$BIG holds $size bytes"; fi
dump >"$WORK/original.dump"

# Without --max-request-bytes: refused before anything is written.
before=$(rev)
run_heron "$(connect_line)
reset checkpoint --target-wal kafka --run --yes --backup-dir $BK"
expect_rc 3 "a value over etcd's default request limit refuses the plan"
expect_out "REFUSED +values within etcd's request limit" "the request-limit gate refuses"
expect_out "$BIG \([0-9]+ bytes\)" "the gate names the key and its size"
expect_out "re-run with --max-request-bytes set to the server's value" "the gate names the flag"
if [ "$(rev)" = "$before" ] && [ -z "$(ls -A "$BK")" ]; then pass "refused: nothing written, no backup"; else fail "refused run wrote or left a backup"; fi

# A server that accepts it, and the flag that says so: the run succeeds.
run_heron "$(connect_line)
reset checkpoint --target-wal kafka --run --max-request-bytes 16777216 --backup-dir $BK"
expect_rc 0 "reset of a 5 MiB segment against --max-request-bytes 16777216"
expect_out "verify: ok" "the run verifies"
if dump --prefix "$BIG" | cut -f2 | grep -q "$(cat "$WORK/tail.hex")"; then pass "the binlogs of the big segment survive the rewrite"; else fail "the big segment lost bytes"; fi
backup=$(backup_in_err)
run_heron "$(connect_line)
restore --file $backup --run --backup-dir $BK"
expect_rc 3 "restore of the big run without --max-request-bytes is refused"
expect_err "restore refused, nothing was written: values within etcd's request limit: 1 values do not fit" "restore: the kit's request-limit gate refuses"
run_heron "$(connect_line)
restore --file $backup --run --max-request-bytes 16777216 --backup-dir $BK"
expect_rc 0 "restore of the big run"
dump >"$WORK/restored.dump"
if cmp -s "$WORK/original.dump" "$WORK/restored.dump"; then pass "restore is byte-identical"; else fail "restore differs"; fi

# The same data under etcd's default request limit.
stop_etcd
start_etcd
cps() { dump --prefix by-dev/meta/streamingnode-meta/wal/ | grep /consume-checkpoint; }
cps >"$WORK/cp.before"
[ -s "$WORK/cp.before" ] || { echo "no consume checkpoint seeded" >&2; exit 1; }
rm -rf "$BK" && mkdir -p "$BK"
run_heron "$(connect_line)
reset checkpoint --target-wal kafka --run --max-request-bytes 16777216 --backup-dir $BK"
expect_rc 1 "reset of a 5 MiB segment against etcd's default --max-request-bytes"
[ -z "${E2E_VERBOSE:-}" ] || printf "  | %s\n" "$OUT" "$ERR"
expect_err "$BIG" "the error names the key"
expect_err "max-request-bytes" "the error names etcd's limit"
expect_err "too large" "the error says the transaction was too large"
if printf '%s' "$ERR" | grep -q "may or may not"; then fail "the refusal is reported as an unknown outcome"; else pass "the refusal is known not written"; fi
expect_out "nothing was written \(0 of [0-9]+ keys\)" "the run says it wrote nothing (the big segment is in its first transaction)"
cps >"$WORK/cp.after"
if cmp -s "$WORK/cp.before" "$WORK/cp.after"; then pass "the consume checkpoints are untouched"; else fail "consume checkpoints changed"; fi
dump >"$WORK/after-refused.dump"
if cmp -s "$WORK/original.dump" "$WORK/after-refused.dump"; then pass "every key is as it was"; else fail "the refused transaction changed keys"; fi
if [ -z "$(ls -A "$BK")" ]; then pass "no backup left (no change to roll back)"; else fail "a backup of no change was left: $(ls "$BK")"; fi
finish
