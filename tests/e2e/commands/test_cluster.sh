# A 3-member etcd cluster (Debian's etcd) with a member killed mid-write
# (issue 17): heron connects to the three members; during a throttled
# reset --run (bin/heron-failpoints, HERON_APPLY_TXN_DELAY) the leader, and
# in a second case a follower, is killed with SIGKILL, with one transaction
# in flight and with 16 (--max-inflight). The run either
# finishes (verify: ok) or stops cleanly (exit 1, the STOPPED block or the
# "re-run heron" guidance; never a crash nor a usage error); a re-run on the
# two live members completes and leaves the root byte for byte as an
# uninterrupted run on the whole cluster does.
. "$(dirname "$0")/../lib.sh"

use_failpoints
use_gen
RC=0 OUT="" ERR=""
ROOT=by-dev

# The cluster: members m0..m2, client and peer ports fixed for the script
# (a killed member restarts as it was).
CLIENT=() PEER=() PID=()
for i in 0 1 2; do
	CLIENT[i]=$(free_port)
	PEER[i]=$(free_port)
done
INITIAL="m0=http://127.0.0.1:${PEER[0]},m1=http://127.0.0.1:${PEER[1]},m2=http://127.0.0.1:${PEER[2]}"
ALL="127.0.0.1:${CLIENT[0]},127.0.0.1:${CLIENT[1]},127.0.0.1:${CLIENT[2]}"
member_up() { # member_up I
	local i=$1
	etcd --name "m$i" --data-dir "$WORK/m$i" \
		--listen-client-urls "http://127.0.0.1:${CLIENT[i]}" --advertise-client-urls "http://127.0.0.1:${CLIENT[i]}" \
		--listen-peer-urls "http://127.0.0.1:${PEER[i]}" --initial-advertise-peer-urls "http://127.0.0.1:${PEER[i]}" \
		--initial-cluster "$INITIAL" --initial-cluster-token heron-e2e >>"$WORK/m$i.log" 2>&1 &
	PID[i]=$!
}
# healthy: every endpoint given answers (a cluster with a leader).
healthy() {
	for _ in $(seq 1 150); do
		ETCDCTL_API=3 etcdctl --endpoints "$1" endpoint health >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "test_cluster: the cluster ($1) is not healthy; logs:" >&2
	tail -5 "$WORK"/m*.log >&2
	exit 1
}
trap 'for p in "${PID[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; cleanup' EXIT
for i in 0 1 2; do member_up "$i"; done
healthy "$ALL"
ETCD=127.0.0.1:${CLIENT[0]}
ctl() { ETCDCTL_API=3 etcdctl --endpoints "$ALL" "$@"; }
# leader: the index of the member that leads now.
leader() {
	ctl endpoint status -w json | python3 -c '
import json, sys
for i, s in enumerate(json.load(sys.stdin)):
    if s["Status"]["leader"] == s["Status"]["header"]["member_id"]:
        print(i)'
}
reset_run() { # reset_run ENDPOINTS BACKUP_DIR: sets RC, OUT, ERR
	mkdir -p "$2"
	run_heron "connect --etcd $1 --rootPath $ROOT
reset checkpoint --target-wal woodpecker --run --backup-dir $2"
}

# --- the reference: an uninterrupted run on the whole cluster ------------------
reseed
reset_run "$ALL" "$WORK/bk-ref"
expect_rc 0 "reference: an uninterrupted reset on the 3-member cluster"
dump_to "$WORK/reference.dump"

# kill_case NAME ROLE K: kills the leader or a follower mid-write of a run
# with K transactions in flight.
kill_case() {
	local name=$1 role=$2 k=$3 victim l live i
	reseed
	l=$(leader)
	[ -n "$l" ] || { echo "test_cluster: no leader" >&2; exit 1; }
	victim=$l
	[ "$role" = leader ] || victim=$(((l + 1) % 3))
	mkdir -p "$WORK/bk-$name"
	printf '%s\n' "connect --etcd $ALL --rootPath $ROOT" "reset checkpoint --target-wal woodpecker --run --max-txn-ops 64 --max-inflight $k --backup-dir $WORK/bk-$name" |
		HERON_APPLY_TXN_DELAY=40ms "$HERON" >"$WORK/out" 2>"$WORK/err" &
	local hpid=$!
	for _ in $(seq 1 200); do
		[ -n "$(find "$WORK/bk-$name" -name 'heron-backup-*.jsonl')" ] && break
		sleep 0.05
	done
	sleep 0.6
	kill -KILL "${PID[victim]}"
	wait "${PID[victim]}" 2>/dev/null
	wait "$hpid"
	RC=$?
	OUT=$(cat "$WORK/out")
	ERR=$(cat "$WORK/err")
	[ -z "${E2E_VERBOSE:-}" ] || printf '  | %s\n' "$ERR" "$(printf '%s' "$OUT" | grep -E '^(STOPPED|verify|reset)')"
	written=$(printf '%s' "$OUT" | grep -oE 'wrote [0-9]+ of [0-9]+ keys' | head -1)
	case "$RC" in
	0)
		pass "$name: the $role killed mid-write ($written), the run finished"
		expect_out "^verify: ok" "$name: verify: ok"
		;;
	1)
		pass "$name: the $role killed mid-write ($written), the run stopped (exit 1)"
		if printf '%s\n%s' "$OUT" "$ERR" | grep -qE "^STOPPED: [0-9]+ of [0-9]+ keys written|re-run heron"; then
			pass "$name: the stop says how to go on"
		else fail "$name: the stop does not say how to go on"; fi
		;;
	*) fail "$name: the $role killed mid-write: want exit 0 or 1" ;;
	esac
	if printf '%s' "$ERR" | grep -qE "^(panic|goroutine )"; then fail "$name: heron crashed"; else pass "$name: no crash"; fi
	live=""
	for i in 0 1 2; do [ "$i" = "$victim" ] || live="$live${live:+,}127.0.0.1:${CLIENT[i]}"; done
	healthy "$live"
	ETCD=${live%%,*}
	reset_run "$live" "$WORK/bk-$name"
	expect_rc 0 "$name: the re-run on the two live members completes"
	expect_out "^verify: ok" "$name: the re-run verifies"
	dump_to "$WORK/$name.dump"
	same "$WORK/reference.dump" "$WORK/$name.dump" "$name: byte for byte the uninterrupted run's keys"
	# The member comes back (same data): three members again.
	member_up "$victim"
	healthy "$ALL"
	ETCD=127.0.0.1:${CLIENT[0]}
}

# One transaction at a time, and as many in flight as --max-inflight allows.
for K in 1 16; do
	kill_case "leader-killed-k$K" leader "$K"
	kill_case "follower-killed-k$K" follower "$K"
done
finish
