# The shell's contract: exit codes, script mode, --olc, failures that name what is wrong.
. "$(dirname "$0")/../lib.sh"
start_etcd
seed --wal pulsar

run_heron "$(connect_line)
# a comment, then a blank line

show collections"
expect_rc 0 "script mode skips comments and blank lines"
expect_out "books" "show collections lists the sample"

run_heron "$(connect_line)
no-such-command
show collections"
expect_rc 2 "unknown command is a usage error"
expect_err "error: .*no-such-command" "unknown command is named"
if printf '%s' "$OUT" | grep -q books; then fail "script mode must stop at the first failing command"; else pass "stops at the first failure"; fi

run_heron "$(connect_line)
show segment --no-such-flag"
expect_rc 2 "unknown flag is a usage error"

port=$(free_port)
start=$(date +%s)
run_heron "connect --etcd 127.0.0.1:$port --rootPath by-dev"
elapsed=$(( $(date +%s) - start ))
expect_rc 1 "unreachable etcd fails"
expect_err "127.0.0.1:$port" "the error names the address"
if [ "$elapsed" -le 12 ]; then pass "unreachable etcd fails within the timeout (${elapsed}s)"; else fail "took ${elapsed}s"; fi

run_heron "$(connect_line wrong-root)"
expect_rc 1 "a root path without Milvus metadata is refused"
expect_err "by-dev" "the error lists the root paths that exist"

"$HERON" --olc "$(connect_line), show collections --format json" >"$WORK/out" 2>"$WORK/err"
RC=$?
OUT=$(cat "$WORK/out")
ERR=$(cat "$WORK/err")
expect_rc 0 "--olc runs comma-separated commands"
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/out"; then pass "--format json is one JSON document"; else fail "stdout is not one JSON document"; fi

finish
