#!/usr/bin/env bash
# Runs every e2e script against the built bin/heron and Debian's etcd server,
# E2E_JOBS at a time (default 4: each script starts its own etcd on free
# ports and works in its own temporary folder, and most of a script's time is
# spent waiting on etcd, not on the CPU). Each script's output is printed in
# one block when it ends, so parallel scripts do not interleave. The tools the
# scripts use are built once here, before any script starts, so that no two
# scripts build the same binary at once.
#
#   bash tests/e2e/run.sh                      # every script
#   bash tests/e2e/run.sh test_chain test_show # some scripts
#   E2E_JOBS=1 bash tests/e2e/run.sh           # one at a time
set -u
cd "$(dirname "$0")/../.."
command -v etcd >/dev/null || { echo "e2e: etcd not found (apt-get install -y etcd-server)" >&2; exit 1; }
[ -x bin/heron ] || { echo "e2e: bin/heron missing (make build)" >&2; exit 1; }
JOBS=${E2E_JOBS:-4}

# The tools: bin/heron-failpoints (use_failpoints), bin/bench-gen (use_gen),
# etcdtool and kafkafake. lib.sh builds them again only when a Go file is
# newer than the binary; built here, they are not.
start=$(date +%s)
echo "e2e: building the test tools (heron-failpoints, bench-gen, etcdtool, kafkafake; about 1 min on an empty build cache)"
make -s build-failpoints || exit 1
CGO_ENABLED=0 go build -o bin/bench-gen ./bench/gen || exit 1
CGO_ENABLED=0 go build -o bin/etcdtool ./tests/e2e/etcdtool || exit 1
CGO_ENABLED=0 go build -o bin/kafkafake ./tests/e2e/kafkafake || exit 1
echo "e2e: tools built in $(($(date +%s) - start))s"

if [ $# -gt 0 ]; then
	scripts=()
	for name in "$@"; do scripts+=("tests/e2e/commands/${name%.sh}.sh"); done
else
	scripts=(tests/e2e/commands/test_*.sh)
fi
logs=$(mktemp -d "${TMPDIR:-/tmp}/heron-e2e-logs.XXXXXX")
trap 'rm -rf "$logs"' EXIT
# Each script runs in its own process group (job control): a signal a
# script sends to its group (a demo's children) reaches no other script;
# an interrupt of the runner stops them all.
set -m
trap 'for p in $(jobs -p); do kill -TERM -- "-$p" 2>/dev/null; done; echo "e2e: interrupted" >&2; exit 130' INT TERM

# run_one SCRIPT: runs it, its output in $logs/NAME.log, its exit code and
# duration in $logs/NAME.rc.
run_one() {
	local t=$1 name s rc
	name=$(basename "$t" .sh)
	s=$(date +%s)
	bash "$t" </dev/null >"$logs/$name.log" 2>&1
	rc=$?
	echo "$rc $(($(date +%s) - s))" >"$logs/$name.rc"
}

echo "e2e: ${#scripts[@]} scripts, $JOBS at a time (about 1.5 min for all on 2 cores, 2 beside the race tests)"
start=$(date +%s)
passed=0
failed=0
failures=""
declare -A running=()
# report: prints the block of every script that ended, once.
report() {
	local name rc secs
	for name in "${!running[@]}"; do
		[ -f "$logs/$name.rc" ] || continue
		read -r rc secs <"$logs/$name.rc"
		if [ "$rc" -eq 0 ]; then
			echo "== $name: ok (${secs}s)"
			passed=$((passed + 1))
		else
			echo "== $name: FAILED, exit $rc (${secs}s)"
			failed=$((failed + 1))
			failures="$failures $name"
		fi
		sed 's/^/   /' "$logs/$name.log"
		unset "running[$name]"
	done
}
for t in "${scripts[@]}"; do
	[ -f "$t" ] || { echo "e2e: no script $t" >&2; failed=$((failed + 1)); failures="$failures $t"; continue; }
	while [ "${#running[@]}" -ge "$JOBS" ]; do
		wait -n 2>/dev/null
		report
	done
	running[$(basename "$t" .sh)]=1
	run_one "$t" &
done
while [ "${#running[@]}" -gt 0 ]; do
	wait -n 2>/dev/null
	report
	# A script ended without its exit status (killed with its runner
	# subshell): counted as failed, not waited for forever.
	if [ -z "$(jobs -rp)" ]; then
		for name in "${!running[@]}"; do
			[ -f "$logs/$name.rc" ] || echo "137 0" >"$logs/$name.rc"
		done
		report
	fi
done
wait
echo "e2e: the scripts took $(($(date +%s) - start))s"
[ -z "$failures" ] || echo "e2e: failed:$failures"
echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
