# Shared helpers of the e2e scripts: a real etcd server (Debian's etcd-server)
# on a free loopback port, the seeding tools, heron run from a script or held
# at a failpoint, a Kafka broker, and assertions. The scripts run 4 at a time
# beside the race tests (scripts/test.sh): every wait here waits for a
# condition, for as long as a loaded machine needs.
set -u

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$E2E_DIR/../.." && pwd)
HERON=${HERON:-$REPO/bin/heron}
ETCDTOOL=${ETCDTOOL:-$REPO/bin/etcdtool}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/heron-e2e.XXXXXX")
ETCD_PID=""
KAFKA_PIDS=""
FAILS=0

cleanup() {
	stop_kafka
	[ -z "$ETCD_PID" ] || kill "$ETCD_PID" 2>/dev/null
	[ -z "$ETCD_PID" ] || wait "$ETCD_PID" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# etcd_on PORT PEER DIR [etcd flags...]: etcd on fixed loopback ports with
# its data in DIR (stopped and started again there, it is the same server);
# sets ETCD and ETCD_PID once it answers, as long as a loaded machine needs
# (a minute at most: then the script fails). Returns 1 when etcd exited
# before it answered (a port taken by a script beside this one).
etcd_on() {
	local port=$1 peer=$2 dir=$3
	shift 3
	ETCD=127.0.0.1:$port
	etcd --name e2e --data-dir "$dir" \
		--listen-client-urls "http://$ETCD" --advertise-client-urls "http://$ETCD" \
		--listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
		--initial-cluster "e2e=http://127.0.0.1:$peer" "$@" >>"$WORK/etcd.log" 2>&1 &
	ETCD_PID=$!
	for _ in $(seq 1 600); do
		ETCDCTL_API=3 etcdctl --endpoints "$ETCD" endpoint health >/dev/null 2>&1 && return 0
		if ! kill -0 "$ETCD_PID" 2>/dev/null; then
			wait "$ETCD_PID" 2>/dev/null
			ETCD_PID=""
			return 1
		fi
		sleep 0.1
	done
	echo "etcd did not answer in a minute; log:" >&2
	tail -20 "$WORK/etcd.log" >&2
	exit 1
}

# etcd_up PORT PEER DIR [etcd flags...]: etcd_on, the script failing when
# etcd exits at its start (a script that restarts etcd where it was).
etcd_up() {
	etcd_on "$@" && return 0
	echo "etcd exited at its start; log:" >&2
	tail -20 "$WORK/etcd.log" >&2
	exit 1
}

# start_etcd [extra etcd flags...]: starts etcd with its data in
# $WORK/etcd, sets ETCD (HOST:PORT). A free port can be taken by a script
# running beside this one (run.sh runs them in parallel) before etcd binds
# it: an etcd that exits at once is started again on other ports.
start_etcd() {
	local attempt
	for attempt in 1 2 3; do
		# Data written before stays (a script restarts etcd on its data);
		# only an etcd that never started is started afresh.
		[ "$attempt" = 1 ] || rm -rf "$WORK/etcd"
		etcd_on "$(free_port)" "$(free_port)" "$WORK/etcd" "$@" && return 0
	done
	echo "etcd did not start; log:" >&2
	cat "$WORK/etcd.log" >&2
	exit 1
}

# stop_etcd: stops the etcd of start_etcd or etcd_up; its data stays.
stop_etcd() {
	kill "$ETCD_PID" 2>/dev/null
	wait "$ETCD_PID" 2>/dev/null
	ETCD_PID=""
}

seed() { "$ETCDTOOL" seed --etcd "$ETCD" "$@"; }
dump() { "$ETCDTOOL" dump --etcd "$ETCD" "$@"; }
ctl() { ETCDCTL_API=3 etcdctl --endpoints "$ETCD" "$@"; }

# rev: etcd's current revision.
rev() { ctl get x -w json | python3 -c 'import json,sys; print(json.load(sys.stdin)["header"]["revision"])'; }

# dump_to FILE: the keys under the root path ROOT (by-dev), dumped.
dump_to() { dump --prefix "${ROOT:-by-dev}/" >"$1" || { echo "$(basename "$0" .sh): dump failed" >&2; exit 1; }; }

# same FILE1 FILE2 NAME: the two dumps are byte for byte the same (a check;
# the first lines that differ shown when not).
same() {
	if cmp -s "$1" "$2"; then pass "$3"; else
		RC=1 OUT="" ERR=$(diff "$1" "$2" | head -4 | cut -c1-200)
		fail "$3: dumps differ ($(diff "$1" "$2" | grep -c '^[<>]') lines)"
	fi
}

# GENFLAGS: the generated instance at by-dev (bench/gen, use_gen) of the
# scripts that interrupt a run: about 3400 keys, some 27 transactions of
# 128 keys.
GENFLAGS="--rootPath by-dev --wal pulsar --segments 3000 --collections 100 --shards 2 --pchannels 8 --writers 4"

# reseed: the root path holds exactly the generated instance again (its
# values are deterministic).
reseed() {
	ctl del --prefix "${ROOT:-by-dev}/" >/dev/null || exit 1
	# shellcheck disable=SC2086
	"$GEN" seed --etcd "$ETCD" $GENFLAGS >/dev/null || { echo "$(basename "$0" .sh): seeding failed" >&2; exit 1; }
}

# seeded_instance [seed flags...]: etcd (start_etcd) holding a pulsar
# instance at by-dev (seed, with the flags given); RC, OUT and ERR cleared;
# BK, an empty backup folder; the instance's dump in $WORK/original.dump.
seeded_instance() {
	start_etcd
	seed --wal pulsar --rootPath by-dev "$@" >/dev/null || { echo "$(basename "$0" .sh): seeding failed" >&2; exit 1; }
	RC=0 OUT="" ERR=""
	BK=$WORK/backups
	mkdir -p "$BK"
	dump >"$WORK/original.dump"
}

# backup_in_err: the backup file the last write command named on stderr
# (ERR): "backup: FILE (N keys, synced)".
backup_in_err() { printf '%s' "$ERR" | sed -n 's/^backup: \(.*\) ([0-9]* keys, synced)$/\1/p' | head -1; }

# reset_to_kafka: reset checkpoint --target-wal kafka --run on the instance
# (checked: exit 0, a backup named); sets backup (its file) and dumps the
# instance after it into $WORK/reset.dump.
reset_to_kafka() {
	run_heron "$(connect_line)
reset checkpoint --target-wal kafka --run --backup-dir $BK"
	expect_rc 0 "reset"
	backup=$(backup_in_err)
	[ -f "$backup" ] || { echo "$(basename "$0" .sh): the reset named no backup: $ERR" >&2; exit 1; }
	dump >"$WORK/reset.dump"
}

# run_heron INPUT [VAR=VALUE...]: pipes INPUT into heron, with the
# environment given (the failpoints'); sets RC, OUT (stdout), ERR (stderr)
# and TOOK (the whole seconds it took). In a subshell: bash's "Killed"
# notice of a heron that killed itself goes nowhere.
run_heron() {
	local start=$SECONDS
	(printf '%s\n' "$1" | env "${@:2}" "$HERON" >"$WORK/out" 2>"$WORK/err") 2>/dev/null
	RC=$?
	TOOK=$((SECONDS - start))
	OUT=$(cat "$WORK/out")
	ERR=$(cat "$WORK/err")
}

connect_line() { echo "connect --etcd $ETCD --rootPath ${1:-by-dev}"; }

pass() { echo "ok   - $1"; }
fail() {
	echo "FAIL - $1" >&2
	echo "  rc=$RC" >&2
	echo "  stdout: $(echo "$OUT" | head -20)" >&2
	echo "  stderr: $(echo "$ERR" | head -20)" >&2
	FAILS=$((FAILS + 1))
}

expect_rc() { # expect_rc WANT NAME
	if [ "$RC" -eq "$1" ]; then pass "$2 (exit $1)"; else fail "$2: want exit $1"; fi
}
# unwrap: its input with each line break and the indent after it made one
# space. Piped, a plan's gate detail and recipe wrap at 120 columns
# (framework.PipeWidth): a pattern that spans a break is looked for there.
unwrap() { sed -z 's/\n */ /g'; }
# expect_out PATTERN NAME: PATTERN in stdout, as printed or unwrapped.
expect_out() {
	if printf '%s' "$OUT" | grep -qE -- "$1" || printf '%s' "$OUT" | unwrap | grep -qE -- "$1"; then
		pass "$2"
	else
		fail "$2: stdout lacks /$1/"
	fi
}
expect_err() {
	if printf '%s' "$ERR" | grep -qE -- "$1"; then pass "$2"; else fail "$2: stderr lacks /$1/"; fi
}
finish() {
	[ "$FAILS" -eq 0 ] || { echo "$FAILS check(s) failed in $(basename "$0")" >&2; exit 1; }
}

# start_kafka NAME ARGS...: a Kafka broker (bin/kafkafake, built when
# missing) with the topics ARGS give, stopped on exit; sets KAFKA (its
# address) once it listens.
start_kafka() {
	local name=$1 pid
	shift
	KAFKAFAKE=${KAFKAFAKE:-$REPO/bin/kafkafake}
	[ -x "$KAFKAFAKE" ] || (cd "$REPO" && CGO_ENABLED=0 go build -o "$KAFKAFAKE" ./tests/e2e/kafkafake) ||
		{ echo "$(basename "$0" .sh): cannot build kafkafake" >&2; exit 1; }
	"$KAFKAFAKE" "$@" >"$WORK/$name.addr" 2>"$WORK/$name.log" &
	pid=$!
	KAFKA_PIDS="$KAFKA_PIDS $pid"
	for _ in $(seq 1 600); do
		KAFKA=$(head -1 "$WORK/$name.addr")
		[ -z "$KAFKA" ] || return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "$(basename "$0" .sh): kafkafake did not start:" >&2
	cat "$WORK/$name.log" >&2
	exit 1
}

# stop_kafka: stops every broker start_kafka started.
stop_kafka() {
	local p
	for p in $KAFKA_PIDS; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	KAFKA_PIDS=""
}

# enable_auth PASS: etcd's auth on, users root and milvus (password PASS),
# milvus with a role that reads and writes by-dev/ only (least privilege).
enable_auth() {
	{
		ctl user add "root:$1" &&
			ctl user add "milvus:$1" &&
			ctl role add milvus-rw &&
			ctl role grant-permission milvus-rw --prefix=true readwrite by-dev/ &&
			ctl user grant-role milvus milvus-rw &&
			ctl auth enable
	} >"$WORK/auth.log" 2>&1 || { echo "$(basename "$0" .sh): enabling etcd auth failed:" >&2; cat "$WORK/auth.log" >&2; exit 1; }
}

# wait_pause FILE PID: waits until the run PID holds at its HERON_APPLY_PAUSE
# point (it created FILE; removing FILE lets it go on), for as long as the
# failpoint holds (a minute): a loaded machine takes its time, and the
# script acts on etcd at that point of the run, not after a guessed sleep.
# The script ends when PID ended first or never paused.
wait_pause() {
	for _ in $(seq 1 1200); do
		[ -e "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.05
	done
	[ -e "$1" ] && return 0
	echo "$(basename "$0" .sh): the run never paused (no $1)" >&2
	exit 1
}

# run_paused POINT COMMAND [VAR=VALUE...]: runs COMMAND on the instance
# (connect_line "$ROOT") in the background with HERON_APPLY_PAUSE at POINT
# and the environment given; returns once the run holds there (wait_pause),
# its process in HPID. resume lets it go on.
run_paused() {
	local point=$1 cmd=$2
	shift 2
	rm -f "$WORK/pause"
	printf '%s\n' "$(connect_line "${ROOT:-by-dev}")" "$cmd" |
		env HERON_APPLY_PAUSE="$point:$WORK/pause" "$@" "$HERON" >"$WORK/paused.out" 2>"$WORK/paused.err" &
	HPID=$!
	wait_pause "$WORK/pause" "$HPID"
}

# resume: lets the run held by run_paused go on and waits for it; sets RC,
# OUT, ERR.
resume() {
	rm -f "$WORK/pause"
	wait "$HPID"
	RC=$?
	OUT=$(cat "$WORK/paused.out")
	ERR=$(cat "$WORK/paused.err")
}

# register_session KEY: a Milvus component registers as a starting one does:
# a lease (etcdctl lease grant) and its session KEY (a datacoord's) put
# with it; sets LEASE.
register_session() {
	LEASE=$(ctl lease grant 300 | awk '/granted/ {print $2}')
	[ -n "$LEASE" ] && ctl put --lease="$LEASE" "$1" '{"ServerID":21,"ServerName":"datacoord","Address":"10.0.0.7:13333"}' >/dev/null ||
		{ echo "$(basename "$0" .sh): registering the session $1 failed" >&2; exit 1; }
}

# expect_session_stop NAME KEY: the run (RC, OUT, ERR) stopped mid-write on
# the session guard once register_session registered KEY: exit 1; the
# error and the STOPPED block name the key, its role and lease; no
# "verify: ok".
expect_session_stop() {
	local name=$1 key=$2
	expect_rc 1 "$name: the run stops"
	expect_err "a Milvus component is running: $key \(datacoord, lease $LEASE\); stop it \(every component\).*stopped after [0-9]+ transactions" "$name: the error names the session key, its role and lease"
	expect_out "^STOPPED: [1-9][0-9]* of [0-9]+ keys written: the instance is split" "$name: the STOPPED block"
	expect_out "  a Milvus component is running: $key \(datacoord, lease $LEASE\): stop it \(every component\) first" "$name: the STOPPED block names the component"
	if printf '%s' "$OUT" | grep -q "verify: ok"; then fail "$name: verify: ok printed while a session holds a lease"; else pass "$name: no verify: ok"; fi
}

# use_failpoints: HERON is bin/heron-failpoints (make build-failpoints: the
# HERON_APPLY_* hooks), built again when a Go file is newer.
use_failpoints() {
	HERON=${HERON_FAILPOINTS:-$REPO/bin/heron-failpoints}
	if [ ! -x "$HERON" ] || [ -n "$(find "$REPO" -name '*.go' -newer "$HERON" 2>/dev/null | head -1)" ]; then
		(cd "$REPO" && make -s build-failpoints) || { echo "$(basename "$0" .sh): make build-failpoints failed" >&2; exit 1; }
	fi
}

# use_gen: GEN is bin/bench-gen (the instance generator), built again when
# bench/gen or models changed.
use_gen() {
	GEN=${GEN:-$REPO/bin/bench-gen}
	if [ ! -x "$GEN" ] || [ -n "$(find "$REPO/bench/gen" "$REPO/models" -name '*.go' -newer "$GEN" 2>/dev/null | head -1)" ]; then
		(cd "$REPO" && CGO_ENABLED=0 go build -o "$GEN" ./bench/gen) || { echo "$(basename "$0" .sh): cannot build bench/gen" >&2; exit 1; }
	fi
}
