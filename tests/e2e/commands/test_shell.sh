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
run_heron "connect --etcd 127.0.0.1:$port --rootPath by-dev"
expect_rc 1 "unreachable etcd fails"
expect_err "127.0.0.1:$port" "the error names the address"
if [ "$TOOK" -le 12 ]; then pass "unreachable etcd fails within the timeout (${TOOK}s)"; else fail "took ${TOOK}s"; fi

# Messages that say what is wrong (issue 10 §2).
run_heron "show collections"
expect_rc 2 "a connected command typed offline is a usage error"
expect_err "error: not connected: run connect --etcd HOST:PORT first" "offline: the error says to connect first"

run_heron "$(connect_line)
$(connect_line)"
expect_rc 2 "connect while connected is a usage error"
expect_err "error: already connected to $ETCD \(root path by-dev\): disconnect first" "connected: the error says to disconnect first"

run_heron "connect --etcd 127.0.0.1 --rootPath by-dev"
expect_rc 2 "an address without a port is a usage error"
expect_err "missing :PORT \(etcd's default client port is 2379\)" "no port: the error says so"

OUT=$(printf '%s\n' "connect --etcd $ETCD --etcdUserName root" | env -u ETCD_PASSWORD -u HERON_ETCD_PASSWORD "$HERON" 2>"$WORK/err")
RC=$?
ERR=$(cat "$WORK/err")
expect_rc 2 "a user without a password is a usage error"
expect_err "error: connect: no password: set \\\$HERON_ETCD_PASSWORD or \\\$ETCD_PASSWORD \\(or give --etcdPassword\\)" "no password: the error says where to give it"

http_port=$(free_port)
python3 -m http.server --bind 127.0.0.1 "$http_port" >"$WORK/http.log" 2>&1 &
HTTP_PID=$!
for _ in $(seq 1 50); do
	python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$http_port" 2>/dev/null && break
	sleep 0.1
done
run_heron "connect --etcd 127.0.0.1:$http_port --rootPath by-dev"
kill "$HTTP_PID" 2>/dev/null
wait "$HTTP_PID" 2>/dev/null
expect_rc 1 "an HTTP server on the port fails"
expect_err "error: 127.0.0.1:$http_port answered, but not as etcd \(HTTP/1.x\)" "HTTP server: the error says it is not etcd"
# At once, not after the 10 s dial timeout (configs.DefaultDialTimeout); 5 s
# leave a loaded machine its time to start heron.
if [ "$TOOK" -le 5 ]; then pass "HTTP server: fails within 5 s (${TOOK}s)"; else fail "HTTP server: took ${TOOK}s"; fi

run_heron "$(connect_line wrong-root)"
expect_rc 1 "a root path without Milvus metadata is refused"
expect_err "by-dev" "the error lists the root paths that exist"

"$HERON" --olc "$(connect_line), show collections --format json" >"$WORK/out" 2>"$WORK/err"
RC=$?
OUT=$(cat "$WORK/out")
ERR=$(cat "$WORK/err")
expect_rc 0 "--olc runs comma-separated commands"
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/out"; then pass "--format json is one JSON document"; else fail "stdout is not one JSON document"; fi

# heron demo removes its folder when a signal ends it (issue 9 item 1).
mkfifo "$WORK/demo.in"
exec 3<>"$WORK/demo.in"
for sig in INT TERM HUP; do
	rm -rf "$WORK/demo-tmp" && mkdir -p "$WORK/demo-tmp"
	TMPDIR=$WORK/demo-tmp "$HERON" demo <"$WORK/demo.in" >"$WORK/out" 2>"$WORK/err" &
	demo_pid=$!
	for _ in $(seq 1 300); do
		grep -q "removed on exit" "$WORK/err" && break
		sleep 0.1
	done
	kill "-$sig" "$demo_pid"
	wait "$demo_pid"
	RC=$?
	OUT=$(cat "$WORK/out")
	ERR=$(cat "$WORK/err")
	expect_rc 1 "demo: SIG$sig while waiting for a command exits 1"
	if [ -z "$(ls -A "$WORK/demo-tmp")" ]; then pass "demo: SIG$sig removes the demo folder"; else fail "demo: SIG$sig left $(ls "$WORK/demo-tmp")"; fi
done
exec 3>&-

finish
