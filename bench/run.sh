#!/usr/bin/env bash
# make bench: times `reset checkpoint` on a generated large instance against a
# local etcd server started for the run, beside a raw etcd write loop of the
# same size, and `show segment` (table and JSON, every segment) on the same
# instance with its peak RSS, which must not grow with the instance.
#
#   BENCH_SEGMENTS=1000000    segments of the instance (default size)
#   BENCH_COLLECTIONS=10000   collections, each with BENCH_SHARDS=2 vchannels
#   BENCH_PCHANNELS=64        pchannels
#   BENCH_SIZES="100000 1000000"  run several segment counts, one fresh etcd each,
#                             and print their peak RSS side by side
#   BENCH_WAL=pulsar          WAL of the seeded positions; BENCH_TARGET=woodpecker
#   BENCH_DATA_DIR=DIR        where etcd keeps its data (default: a temp dir on
#                             /dev/shm when it has room, else under $TMPDIR; see below)
#   BENCH_WRITERS=4           concurrent writers of the generator
#   BENCH_STRICT=1            exit 1 when a target is missed
#   BENCH_ETCD="3.5 3.4"      etcd servers, each measured in turn: 3.5 is etcd's
#                             own 3.5.17 server (the line Milvus's compose pins),
#                             built from bench/etcd35 into bin/etcd35; 3.4 is
#                             Debian's etcd on PATH
#   BENCH_SHOW=0              skip show segment
#   BENCH_LOAD=0              skip backup + load-backup (at 1M its load takes minutes)
#   BENCH_RESTORE=0           skip restore, --max-inflight 1 and apply --file
#   BENCH_ROUNDS=3            rounds of the --run at K, the guarded loop, restore,
#                             the raw read and apply --file (apply from round 2):
#                             each figure is the fastest of its samples
#   BENCH_INFLIGHT=K          the first --run's --max-inflight (default: heron's);
#                             the pipelined raw loop has as many in flight
#
# etcd runs with --quota-backend-bytes 8GiB and no auto-compaction: before
# each timed pass the bench compacts and defragments it and starts a new etcd
# process on a snapshot of it (settle), so that every pass meets the same
# etcd: the instance as it stands, a fresh heap. Its data dir
# is on tmpfs by default: a production etcd sits on a disk whose fsync takes a
# fraction of a millisecond, while this VM's disk takes ~4 ms per fsync, which
# would make both heron and the raw loop measure the disk only. Set
# BENCH_DATA_DIR=/var/tmp/x (say) to measure on disk; the ratio to the raw loop
# stays meaningful there.
#
# Phases: generate (bench/gen seed: txns of 128 puts, several writers),
# raw read (bench/gen read: every key of the instance in exact windows of
# ~10,000 keys), load-backup (heron backup of the instance, then heron
# load-backup of that file: its pre-flight estimate, peak RSS and peak
# anonymous RSS, sampled from /proc), show (heron, `show segment --limit 0`
# as a table, then `show segment --format json`: both stream, a row at a
# time), dry run (heron, `reset checkpoint --target-wal T --format json`),
# --run (the same with --run --backup-dir, at the default --max-inflight K),
# restore --run of its backup (the instance is as generated again), --run
# --max-inflight 1, restore again, then from round 2 to BENCH_ROUNDS: a
# --run at K, the guarded loop, restore, the raw read, a dry run with
# --plan-out and apply --file of that plan with --run, and (but in the last
# round) a restore of the apply's backup, untimed (each figure the fastest
# of its samples; the table lists them all). BENCH_RESTORE=0 skips all but
# the first --run. Then three raw write loops (bench/gen raw: as many segment-shaped
# keys as heron wrote, values built before the clock starts, transactions
# of 128 puts), all rewriting keys an untimed pass created, as heron
# rewrites existing keys: K in flight with a mod-revision compare per key
# (--compare: the work of heron's revision-guarded transactions, the honest
# anchor of its write pass) right after the first --run, and at the end
# one transaction at a time, then K in flight. check --since-backup of the first --run's backup runs after that
# --run; after apply --file, bench/gen findings gives the instance one thing
# for each repair to repair, and each repair's dry run (the fastest of
# three, in a connected session: bench/session.py) is timed beside bench/gen
# read --repair, a raw read of the ranges it reads. All on the same server in the
# same run: each heron phase is printed as a ratio to them (reads to the raw
# read, the write pass and the whole --run to the raw loops and to the floor,
# the raw read plus the guarded loop; restore and apply --file to the
# --run), with issue 37's targets (figure, limit, ok/MISS; with several
# sizes, the growth from each to the next). heron's wall time and peak RSS
# come from /usr/bin/time -v (VmHWM from /proc when it is missing).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)

SIZES=${BENCH_SIZES:-${BENCH_SEGMENTS:-1000000}}
COLLECTIONS=${BENCH_COLLECTIONS:-10000}
SHARDS=${BENCH_SHARDS:-2}
PCHANNELS=${BENCH_PCHANNELS:-64}
WAL=${BENCH_WAL:-pulsar}
TARGET=${BENCH_TARGET:-woodpecker}
WRITERS=${BENCH_WRITERS:-4}
HERON=${HERON:-$REPO/bin/heron}
GEN=$REPO/bin/bench-gen

ROUNDS=${BENCH_ROUNDS:-3}
case $ROUNDS in ''|*[!0-9]*|0) echo "bench: BENCH_ROUNDS: want a count of 1 or more, got '$ROUNDS'" >&2; exit 1 ;; esac
SERVERS=${BENCH_ETCD:-3.5 3.4}
for V in $SERVERS; do
	case $V in
	3.4) command -v etcd >/dev/null || { echo "bench: etcd not found (apt-get install -y etcd-server)" >&2; exit 1; } ;;
	3.5) echo "bench: building etcd 3.5 (bench/etcd35) into bin/etcd35" >&2
		(cd bench/etcd35 && CGO_ENABLED=0 go build -o "$REPO/bin/etcd35" .) ;;
	*) echo "bench: BENCH_ETCD: unknown server $V (3.5 or 3.4)" >&2; exit 1 ;;
	esac
done
command -v python3 >/dev/null || { echo "bench: python3 not found" >&2; exit 1; }
command -v etcdctl >/dev/null || { echo "bench: etcdctl not found (apt-get install -y etcd-client)" >&2; exit 1; }
[ -x "$HERON" ] || { echo "bench: $HERON missing (make build)" >&2; exit 1; }
CGO_ENABLED=0 go build -o "$GEN" ./bench/gen

TIME=/usr/bin/time
if [ ! -x "$TIME" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "bench: installing Debian's time package for peak RSS" >&2
	apt-get install -y time >/dev/null 2>&1 || true
fi
[ -x "$TIME" ] || TIME=""

if [ -n "${BENCH_DATA_DIR:-}" ]; then
	mkdir -p "$BENCH_DATA_DIR"
	BASE=$(mktemp -d "$BENCH_DATA_DIR/heron-bench.XXXXXX")
elif [ -d /dev/shm ] && [ -w /dev/shm ] && [ "$(df -Pk /dev/shm | awk 'NR==2{print $4}')" -gt $((6 * 1024 * 1024)) ]; then
	BASE=$(mktemp -d /dev/shm/heron-bench.XXXXXX)
else
	BASE=$(mktemp -d "${TMPDIR:-/tmp}/heron-bench.XXXXXX")
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/heron-bench-work.XXXXXX")
ETCD_PID=""
cleanup() {
	if [ -n "$ETCD_PID" ]; then kill "$ETCD_PID" 2>/dev/null || true; wait "$ETCD_PID" 2>/dev/null || true; fi
	rm -rf "$BASE" "$WORK"
}
trap cleanup EXIT
STORAGE="$(df -P "$BASE" | awk 'NR==2{print $1}') ($BASE)"
FSTYPE=$(stat -f -c %T "$BASE")

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

start_etcd() { # start_etcd NAME VERSION: a new etcd on new ports
	ETCD_DIR=$BASE/$1 ETCD_BIN=etcd ETCD_NAME=$1
	[ "$2" = 3.5 ] && ETCD_BIN=$REPO/bin/etcd35
	ETCD_PORT=$(free_port)
	ETCD_PEER=$(free_port)
	ETCD=127.0.0.1:$ETCD_PORT
	run_etcd
}

# run_etcd: starts etcd on $ETCD_DIR at $ETCD, waits until it is healthy.
run_etcd() {
	"$ETCD_BIN" --name bench --data-dir "$ETCD_DIR" \
		--listen-client-urls "http://$ETCD" --advertise-client-urls "http://$ETCD" \
		--listen-peer-urls "http://127.0.0.1:$ETCD_PEER" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER" \
		--initial-cluster "bench=http://127.0.0.1:$ETCD_PEER" \
		--quota-backend-bytes $((8 * 1024 * 1024 * 1024)) --auto-compaction-retention 0 \
		--max-request-bytes $((3 * 512 * 1024)) >>"$WORK/etcd-$ETCD_NAME.log" 2>&1 &
	ETCD_PID=$!
	for _ in $(seq 1 600); do
		if ETCDCTL_API=3 etcdctl --endpoints "$ETCD" endpoint health >/dev/null 2>&1; then return 0; fi
		sleep 0.1
	done
	echo "bench: etcd did not start:" >&2
	tail -20 "$WORK/etcd-$ETCD_NAME.log" >&2
	exit 1
}

# settle: every timed pass meets a fresh etcd holding what the instance holds
# now, one revision per key, as a production etcd with auto-compaction keeps
# it: compact at the current revision, defragment, save a snapshot, and
# start a new etcd process (same address) on a data dir restored from it.
# Without the compaction each later pass ran on a larger bbolt file; without
# the new process, on an etcd whose heap held the raft log of every pass
# before it (etcd keeps --snapshot-count entries, 100,000 by default: a whole
# bench run), 12-14 GB by the last passes, which were slower for that alone.
settle() {
	local rev
	rev=$(ETCDCTL_API=3 etcdctl --endpoints "$ETCD" endpoint status -w json |
		python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["Status"]["header"]["revision"])')
	# (nothing written since the last settle: compacted at this revision already)
	ETCDCTL_API=3 etcdctl --endpoints "$ETCD" compact "$rev" --physical --command-timeout 600s >/dev/null 2>"$WORK/compact.err" ||
		grep -q 'required revision has been compacted' "$WORK/compact.err" || { cat "$WORK/compact.err" >&2; exit 1; }
	ETCDCTL_API=3 etcdctl --endpoints "$ETCD" defrag --command-timeout 600s >/dev/null
	# A failed save or restore stops the bench: etcd would start empty.
	ETCDCTL_API=3 etcdctl --endpoints "$ETCD" snapshot save "$BASE/settle.db" --command-timeout 600s >"$WORK/settle.log" 2>&1 ||
		{ cat "$WORK/settle.log" >&2; exit 1; }
	stop_etcd
	rm -rf "$ETCD_DIR"
	ETCDCTL_API=3 etcdctl snapshot restore "$BASE/settle.db" --data-dir "$ETCD_DIR" --name bench \
		--initial-cluster "bench=http://127.0.0.1:$ETCD_PEER" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER" >"$WORK/settle.log" 2>&1 ||
		{ cat "$WORK/settle.log" >&2; exit 1; }
	rm -f "$BASE/settle.db"
	run_etcd
}

stop_etcd() {
	kill "$ETCD_PID" 2>/dev/null || true
	wait "$ETCD_PID" 2>/dev/null || true
	ETCD_PID=""
}

# cpu_of PID: the CPU seconds (user and system) process PID has used.
cpu_of() {
	awk -v tick="$(getconf CLK_TCK)" '{sub(/.*\) /, ""); print ($12 + $13) / tick}' "/proc/$1/stat"
}

# faster A B: the smaller of two seconds.
faster() {
	python3 -c "import sys; print(min(sys.argv[1:], key=float))" "$1" "$2"
}

# sample NAME [SECONDS]: one sample of pass NAME (the last measure's by
# default) in $R.samples: the table lists every sample beside the fastest.
sample() {
	printf '%s\t%s\n' "$1" "${2:-$M_SEC}" >>"$R.samples"
}

# keep_measure VAR NAME SAMPLE: the last measure (heron's, of $WORK/NAME)
# is a sample of pass SAMPLE; VAR_KB keeps the highest peak RSS, and when it
# is the fastest yet, VAR_SEC, VAR_CPU and VAR_ETCD_CPU take its figures and
# its output becomes the pass's ($WORK/var-$SEG.out).
keep_measure() {
	local sec=$1_SEC kb=$1_KB out
	sample "$3"
	[ "$M_KB" -le "${!kb}" ] || printf -v "$kb" %s "$M_KB"
	if [ "${!sec}" = 0 ] || [ "$(faster "${!sec}" "$M_SEC")" != "${!sec}" ]; then
		printf -v "$sec" %s "$M_SEC"
		printf -v "$1_CPU" %s "$M_CPU"
		printf -v "$1_ETCD_CPU" %s "$M_ETCD_CPU"
		out="$WORK/${1,,}-$SEG.out"
		[ "$WORK/$2.out" = "$out" ] || cp "$WORK/$2.out" "$out"
	fi
}

# keep_faster NAME BEST NEW: a raw pass's new sample; BEST keeps the faster
# of the two JSON documents.
keep_faster() {
	sample "$1" "$(python3 "$REPO/bench/result.py" seconds "$3")"
	python3 "$REPO/bench/result.py" faster "$2" "$3" >"$2.tmp"
	mv "$2.tmp" "$2"
}

# measure NAME SCRIPT: pipes SCRIPT into heron; sets M_RC, M_SEC, M_KB and
# leaves stdout in $WORK/NAME.out, stderr in $WORK/NAME.err.
measure() {
	local name=$1 script=$2
	printf '%s\n' "$script" >"$WORK/$name.in"
	local t0 t1
	local e0
	e0=$(cpu_of "$ETCD_PID")
	t0=$(date +%s.%N)
	M_RC=0 M_CPU=0
	if [ -n "$TIME" ]; then
		"$TIME" -v -o "$WORK/$name.time" "$HERON" <"$WORK/$name.in" >"$WORK/$name.out" 2>"$WORK/$name.err" || M_RC=$?
		M_KB=$(awk -F': ' '/Maximum resident set size/{print $2}' "$WORK/$name.time")
		M_CPU=$(awk -F': ' '/User time|System time/{s += $2} END{print s + 0}' "$WORK/$name.time")
	else
		"$HERON" <"$WORK/$name.in" >"$WORK/$name.out" 2>"$WORK/$name.err" &
		local pid=$! hwm=0 v
		while kill -0 "$pid" 2>/dev/null; do
			v=$(awk '/^VmHWM/{print $2}' "/proc/$pid/status" 2>/dev/null || true)
			[ -z "$v" ] || hwm=$v
			sleep 0.05
		done
		wait "$pid" || M_RC=$?
		M_KB=$hwm
	fi
	t1=$(date +%s.%N)
	M_SEC=$(python3 -c "print(f'{$t1-$t0:.2f}')")
	M_ETCD_CPU=$(python3 -c "print(round($(cpu_of "$ETCD_PID") - $e0, 2))")
}

# raw_pass FILE ARGS...: bench/gen ARGS, its JSON in FILE with the CPU etcd
# used in its time (etcd_cpu_seconds) beside bench/gen's own.
raw_pass() {
	local out=$1 e0
	shift
	e0=$(cpu_of "$ETCD_PID")
	"$GEN" "$@" >"$out.tmp"
	python3 -c "import json, sys; d = json.load(open(sys.argv[1])); d['etcd_cpu_seconds'] = round(float(sys.argv[2]), 2); print(json.dumps(d))" \
		"$out.tmp" "$(python3 -c "print($(cpu_of "$ETCD_PID") - $e0)")" >"$out"
	rm -f "$out.tmp"
}

# measure_load FILE: heron load-backup FILE with no command (it loads, then
# ends at end of input); sets LOAD_RC, LOAD_SEC, LOAD_KB (peak RSS, VmHWM) and
# LOAD_ANON_KB (the highest RssAnon sampled every 0.1 s).
measure_load() {
	local t0 t1 pid v hwm=0 anon=0
	t0=$(date +%s.%N)
	"$HERON" load-backup "$1" </dev/null >"$WORK/load-$SEG.out" 2>"$WORK/load-$SEG.err" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		v=$(awk '/^VmHWM/{h=$2} /^RssAnon/{a=$2} END{print h+0, a+0}' "/proc/$pid/status" 2>/dev/null || echo "0 0")
		set -- $v
		[ "${1:-0}" -le "$hwm" ] || hwm=$1
		[ "${2:-0}" -le "$anon" ] || anon=$2
		sleep 0.1
	done
	LOAD_RC=0
	wait "$pid" || LOAD_RC=$?
	t1=$(date +%s.%N)
	LOAD_SEC=$(python3 -c "print(f'{$t1-$t0:.2f}')")
	LOAD_KB=$hwm
	LOAD_ANON_KB=$anon
}

# must_pass WHAT NAME: stops the bench when the last measure failed.
must_pass() {
	[ "$M_RC" -eq 0 ] && return 0
	echo "bench: $1 failed (exit $M_RC):" >&2
	tail -20 "$WORK/$2.err" >&2
	exit 1
}

# timed_run NAME FLAGS: reset checkpoint --run FLAGS, its backup in $WORK/NAME.bk.
timed_run() {
	settle
	mkdir -p "$WORK/$1.bk"
	measure "$1" "$CONNECT
reset checkpoint --target-wal $TARGET --run --format json --backup-dir $WORK/$1.bk $2"
	must_pass "--run $2" "$1"
}

# timed_restore NAME RUN: restore --run of the backup RUN's --run wrote.
timed_restore() {
	local file
	file=$(ls "$WORK/$2.bk"/*.jsonl | head -1)
	settle
	mkdir -p "$WORK/$1.bk"
	measure "$1" "$CONNECT
restore --file $file --run --format json --backup-dir $WORK/$1.bk"
	must_pass "restore --run" "$1"
}

declare -a SUMMARY=()
declare -A GROWTH=()
FAILED_TARGETS=0

for V in $SERVERS; do
for SEG in $SIZES; do
	R=$WORK/results-$V-$SEG
	echo "== bench: etcd $V, $SEG segments, $COLLECTIONS collections x $SHARDS shards, $PCHANNELS pchannels, $WAL -> $TARGET" >&2
	start_etcd "etcd-$V-$SEG" "$V"
	"$GEN" seed --etcd "$ETCD" --rootPath by-dev --wal "$WAL" --segments "$SEG" --collections "$COLLECTIONS" \
		--shards "$SHARDS" --pchannels "$PCHANNELS" --writers "$WRITERS" >"$R.gen.json"
	echo "   generated: $(cat "$R.gen.json")" >&2
	CONNECT="connect --etcd $ETCD --rootPath by-dev"

	settle
	: >"$R.samples"
	raw_pass "$R.read.json" read --etcd "$ETCD" --rootPath by-dev --segments "$SEG" --collections "$COLLECTIONS"
	echo "   raw read: $(cat "$R.read.json")" >&2
	sample "raw read" "$(python3 "$REPO/bench/result.py" seconds "$R.read.json")"

	SHOW_TABLE_SEC=0 SHOW_TABLE_KB=0 SHOW_JSON_SEC=0 SHOW_JSON_KB=0
	if [ "${BENCH_SHOW:-1}" != 0 ]; then
	measure "show-table-$SEG" "$CONNECT
show segment --limit 0"
	SHOW_TABLE_RC=$M_RC SHOW_TABLE_SEC=$M_SEC SHOW_TABLE_KB=$M_KB
	measure "show-json-$SEG" "$CONNECT
show segment --format json"
	SHOW_JSON_RC=$M_RC SHOW_JSON_SEC=$M_SEC SHOW_JSON_KB=$M_KB
	if [ "$SHOW_TABLE_RC" -ne 0 ] || [ "$SHOW_JSON_RC" -ne 0 ]; then
		echo "bench: show segment failed (table exit $SHOW_TABLE_RC, json exit $SHOW_JSON_RC):" >&2
		tail -5 "$WORK/show-table-$SEG.err" "$WORK/show-json-$SEG.err" >&2
		exit 1
	fi
	echo "   show segment: table ${SHOW_TABLE_SEC}s, json ${SHOW_JSON_SEC}s" >&2
	python3 "$REPO/bench/result.py" show "$SEG" "$WORK/show-table-$SEG.out" "$SHOW_TABLE_SEC" "$SHOW_TABLE_KB" \
		"$WORK/show-json-$SEG.out" "$SHOW_JSON_SEC" "$SHOW_JSON_KB" >"$R.show" || FAILED_TARGETS=1
	rm -f "$WORK/show-table-$SEG.out" "$WORK/show-json-$SEG.out"
	fi

	# load-backup: a full backup of the instance loaded into heron's embedded
	# etcd (the rehearsal copy), its peak RSS and peak anonymous RSS sampled
	# from /proc (the file-backed rest is etcd's bbolt mmap: page cache that
	# a memory-limited pod can reclaim).
	LOAD_KB=0 LOAD_ANON_KB=0
	if [ "${BENCH_LOAD:-1}" != 0 ]; then
	measure "backup-$SEG" "$CONNECT
backup --file $WORK/full-$SEG.jsonl"
	[ "$M_RC" -eq 0 ] || { echo "bench: backup failed (exit $M_RC):" >&2; tail -5 "$WORK/backup-$SEG.err" >&2; exit 1; }
	measure_load "$WORK/full-$SEG.jsonl"
	rm -f "$WORK/full-$SEG.jsonl"
	[ "$LOAD_RC" -eq 0 ] || { echo "bench: load-backup failed (exit $LOAD_RC):" >&2; tail -5 "$WORK/load-$SEG.err" >&2; exit 1; }
	echo "   load-backup: ${LOAD_SEC}s" >&2
	python3 "$REPO/bench/result.py" load "$SEG" "$WORK/load-$SEG.err" "$LOAD_SEC" "$LOAD_KB" "$LOAD_ANON_KB" >"$R.load" || FAILED_TARGETS=1
	fi

	measure "dry-$SEG" "$CONNECT
reset checkpoint --target-wal $TARGET --format json"
	DRY_RC=$M_RC DRY_SEC=$M_SEC DRY_KB=$M_KB
	must_pass "dry run" "dry-$SEG"
	echo "   dry run: ${DRY_SEC}s" >&2

	# --run at the default --max-inflight, restored (timed: restore beside
	# the run it undoes), at --max-inflight 1, restored again, then the same
	# plan saved with --plan-out and applied with apply --file.
	timed_run "run-$SEG" "${BENCH_INFLIGHT:+--max-inflight $BENCH_INFLIGHT}"
	RUN_SEC=0 RUN_KB=0
	keep_measure RUN "run-$SEG" --run
	echo "   --run: ${RUN_SEC}s" >&2
	# The floor's write half right after the --run, its read half (the raw
	# read) just before the dry run: a busy machine's load changes less
	# between passes taken back to back. The raw loops write as many keys as
	# heron wrote, with the values built before their clock starts; the
	# guarded one has as many transactions in flight as heron's --run and a
	# mod-revision compare per key, as heron's guarded transactions carry.
	# An untimed pass creates the keys first: heron rewrites keys that exist,
	# and so do the timed loops.
	KEYS=$(python3 "$REPO/bench/result.py" keys "$WORK/run-$SEG.out" "$WORK/dry-$SEG.out")
	K=$(python3 "$REPO/bench/result.py" inflight "$WORK/run-$SEG.out")
	"$GEN" raw --etcd "$ETCD" --keys "$KEYS" --prefix bench-raw/ --inflight "$K" >/dev/null
	settle
	raw_pass "$R.rawc.json" raw --etcd "$ETCD" --keys "$KEYS" --prefix bench-raw/ --inflight "$K" --compare
	echo "   guarded loop, $K in flight: $(cat "$R.rawc.json")" >&2
	sample "guarded loop" "$(python3 "$REPO/bench/result.py" seconds "$R.rawc.json")"
	BACKUP_BYTES=$(du -sb "$WORK/run-$SEG.bk" | awk '{print $1}')
	# check --since-backup the reset's backup, on the instance the reset
	# left (exit 1: its FAILs, no Milvus runs here).
	settle
	measure "check-$SEG" "$CONNECT
check --since-backup $(ls "$WORK/run-$SEG.bk"/*.jsonl | head -1) --format json"
	[ "$M_RC" -le 1 ] || must_pass "check --since-backup" "check-$SEG"
	CHECK_SEC=$M_SEC CHECK_KB=$M_KB
	echo "   check --since-backup: ${CHECK_SEC}s" >&2
	RESTORE_SEC=0 RESTORE_KB=0 RESTORE_CPU=0 RESTORE_ETCD_CPU=0 APPLY_CPU=0 APPLY_ETCD_CPU=0 RUN1_SEC=0 RUN1_KB=0 APPLY_SEC=0 APPLY_KB=0 RESTORE1_KB=0 PLAN_KB=0
	if [ "${BENCH_RESTORE:-1}" != 0 ]; then
		timed_restore "restore-$SEG" "run-$SEG"
		keep_measure RESTORE "restore-$SEG" "restore --run"
		echo "   restore --run: ${RESTORE_SEC}s" >&2
		timed_run "run1-$SEG" "--max-inflight 1"
		RUN1_SEC=$M_SEC RUN1_KB=$M_KB
		echo "   --run --max-inflight 1: ${RUN1_SEC}s" >&2
		timed_restore "restore1-$SEG" "run1-$SEG"
		RESTORE1_KB=$M_KB
		rm -rf "$WORK/restore-$SEG.bk" "$WORK/run1-$SEG.bk" "$WORK/restore1-$SEG.bk"
		# More rounds of the --run at K, of the floor's passes, of restore
		# and of apply --file: each figure is the fastest of its samples,
		# heron's and the floor's alike (the same pass taken minutes apart
		# varies by 10-25% on this machine). An apply's changes are undone
		# by a restore of its backup before the next round (untimed: the
		# restores counted are of the --run's backups).
		for ROUND in $(seq 2 "$ROUNDS"); do
			timed_run "run$ROUND-$SEG" "${BENCH_INFLIGHT:+--max-inflight $BENCH_INFLIGHT}"
			echo "   --run, round $ROUND: ${M_SEC}s" >&2
			keep_measure RUN "run$ROUND-$SEG" --run
			settle
			raw_pass "$R.rawc$ROUND.json" raw --etcd "$ETCD" --keys "$KEYS" --prefix bench-raw/ --inflight "$K" --compare
			echo "   guarded loop, round $ROUND: $(cat "$R.rawc$ROUND.json")" >&2
			keep_faster "guarded loop" "$R.rawc.json" "$R.rawc$ROUND.json"
			timed_restore "restore$ROUND-$SEG" "run$ROUND-$SEG"
			echo "   restore --run, round $ROUND: ${M_SEC}s" >&2
			keep_measure RESTORE "restore$ROUND-$SEG" "restore --run"
			rm -rf "$WORK/run$ROUND-$SEG.bk" "$WORK/restore$ROUND-$SEG.bk"
			settle
			raw_pass "$R.read$ROUND.json" read --etcd "$ETCD" --rootPath by-dev --segments "$SEG" --collections "$COLLECTIONS"
			echo "   raw read, round $ROUND: $(cat "$R.read$ROUND.json")" >&2
			keep_faster "raw read" "$R.read.json" "$R.read$ROUND.json"
			measure "plan-$SEG" "$CONNECT
reset checkpoint --target-wal $TARGET --format json --plan-out $WORK/plan-$SEG.jsonl"
			must_pass "dry run --plan-out" "plan-$SEG"
			[ "$M_KB" -le "$PLAN_KB" ] || PLAN_KB=$M_KB
			mkdir -p "$WORK/apply$ROUND-$SEG.bk"
			settle
			measure "apply$ROUND-$SEG" "$CONNECT
apply --file $WORK/plan-$SEG.jsonl --run --format json --backup-dir $WORK/apply$ROUND-$SEG.bk"
			must_pass "apply --file --run" "apply$ROUND-$SEG"
			echo "   apply --file --run, round $ROUND: ${M_SEC}s" >&2
			keep_measure APPLY "apply$ROUND-$SEG" "apply --file --run"
			rm -f "$WORK/plan-$SEG.jsonl"
			[ "$ROUND" -lt "$ROUNDS" ] || break
			timed_restore "unapply$ROUND-$SEG" "apply$ROUND-$SEG"
			rm -rf "$WORK/apply$ROUND-$SEG.bk" "$WORK/unapply$ROUND-$SEG.bk"
		done
	fi
	rm -rf "$WORK"/*.bk

	# The repairs' dry runs on the instance with one finding for each
	# (bench/gen findings), each beside a raw read of every range it reads:
	# each timed in a session from the end of its connect to heron's exit
	# (bench/session.py), less the same for a command that reads nothing
	# (version): neither heron's process start, nor its connect, nor its
	# exit is the repair's. Three of each, the fastest counted; with the CPU
	# heron (bench/gen for the raw read) and etcd used in each.
	"$GEN" findings --etcd "$ETCD" --rootPath by-dev --collections "$COLLECTIONS" --shards "$SHARDS" --pchannels "$PCHANNELS" >"$R.findings"
	settle
	START_SEC=
	for i in 1 2 3; do
		measure "start-$SEG" "$CONNECT"
		must_pass "connect" "start-$SEG"
		START_SEC=$(faster "${START_SEC:-$M_SEC}" "$M_SEC")
	done
	: >"$R.noop"
	for i in 1 2 3; do
		python3 "$REPO/bench/session.py" "$HERON" "$CONNECT" "version --format json" /dev/null "$ETCD_PID" >>"$R.noop"
	done
	: >"$R.repairs"
	while IFS=$'\t' read -r NAME CMD; do
		for i in 1 2 3; do
			LINE=$(python3 "$REPO/bench/session.py" "$HERON" "$CONNECT" "$CMD --format json" "$WORK/repair-$SEG.out" "$ETCD_PID")
			set -- $LINE
			# exit 3: refused by a gate of its plan, after every read
			[ "$3" -eq 0 ] || [ "$3" -eq 3 ] || { echo "bench: $NAME failed (exit $3)" >&2; exit 1; }
			printf '%s\theron\t%s\n' "$NAME" "$LINE" >>"$R.repairs"
			E0=$(cpu_of "$ETCD_PID")
			RAW=$("$GEN" read --etcd "$ETCD" --rootPath by-dev --segments "$SEG" --collections "$COLLECTIONS" \
				--shards "$SHARDS" --pchannels "$PCHANNELS" --repair "$NAME")
			printf '%s\traw\t%s\t%s\n' "$NAME" "$RAW" "$(python3 -c "print(round($(cpu_of "$ETCD_PID") - $E0, 2))")" >>"$R.repairs"
		done
		echo "   $NAME: exit $3, fastest $(awk -F'\t' -v n="$NAME" '$1 == n && $2 == "heron" {split($3, f, " "); if (b == "" || f[1] < b) b = f[1]} END {print b}' "$R.repairs")s" >&2
	done <"$R.findings"

	# The unguarded loops (the guarded one ran after the --run): one
	# transaction at a time, then as many in flight as heron's --run had.
	settle
	"$GEN" raw --etcd "$ETCD" --keys "$KEYS" --prefix bench-raw/ --inflight 1 >"$R.raw.json"
	echo "   raw loop: $(cat "$R.raw.json")" >&2
	settle
	"$GEN" raw --etcd "$ETCD" --keys "$KEYS" --prefix bench-raw/ --inflight "$K" >"$R.rawk.json"
	echo "   raw loop, $K in flight: $(cat "$R.rawk.json")" >&2
	stop_etcd
	rm -rf "$ETCD_DIR"

	cat >"$R.vals" <<-EOF
	segments=$SEG
	storage=$STORAGE, etcd $V
	fstype=$FSTYPE
	gen=$R.gen.json
	read=$R.read.json
	raw=$R.raw.json
	rawk=$R.rawk.json
	rawc=$R.rawc.json
	dry_out=$WORK/dry-$SEG.out
	dry_sec=$DRY_SEC
	dry_kb=$DRY_KB
	run_out=$WORK/run-$SEG.out
	run_sec=$RUN_SEC
	run_kb=$RUN_KB
	run_cpu=$RUN_CPU
	run_etcd_cpu=$RUN_ETCD_CPU
	backup_bytes=$BACKUP_BYTES
	run1_out=$WORK/run1-$SEG.out
	run1_sec=$RUN1_SEC
	run1_kb=$RUN1_KB
	restore_out=$WORK/restore-$SEG.out
	restore_sec=$RESTORE_SEC
	restore_kb=$RESTORE_KB
	restore_cpu=$RESTORE_CPU
	restore_etcd_cpu=$RESTORE_ETCD_CPU
	restore1_kb=$RESTORE1_KB
	plan_kb=$PLAN_KB
	apply_out=$WORK/apply-$SEG.out
	apply_sec=$APPLY_SEC
	apply_kb=$APPLY_KB
	apply_cpu=$APPLY_CPU
	apply_etcd_cpu=$APPLY_ETCD_CPU
	check_sec=$CHECK_SEC
	check_kb=$CHECK_KB
	start_sec=$START_SEC
	noop=$R.noop
	repairs=$R.repairs
	samples=$R.samples
	EOF
	python3 "$REPO/bench/result.py" table "$R.vals" >"$R.table" || FAILED_TARGETS=1
	cat "$R.table"
	[ ! -f "$R.load" ] || cat "$R.load"
	[ ! -f "$R.show" ] || cat "$R.show"
	SUMMARY+=("$V $SEG $DRY_KB $RUN_KB $DRY_SEC $RUN_SEC $SHOW_TABLE_KB $SHOW_JSON_KB $LOAD_KB $LOAD_ANON_KB")
	GROWTH[$V]="${GROWTH[$V]:-} $R.vals"
	rm -f "$WORK"/*-"$SEG".out "$WORK"/*-"$SEG".err
done
done

# issue 37: from each size to the next, the time of --run, the dry run,
# restore and check grows at most 1.1x the instance.
for V in $SERVERS; do
	set -- ${GROWTH[$V]}
	[ "$#" -lt 2 ] || python3 "$REPO/bench/result.py" growth "$V" "$@" || FAILED_TARGETS=1
done

if [ "${#SUMMARY[@]}" -gt 1 ]; then
	echo
	echo "peak RSS by instance size (must not grow with the instance, but load-backup's: its etcd indexes every key in memory):"
	printf '%5s %12s  %16s  %16s  %10s  %10s  %15s  %14s  %16s  %17s\n' etcd segments "dry run RSS MiB" "--run RSS MiB" "dry run s" "--run s" "show table MiB" "show json MiB" "load-backup MiB" "(anonymous MiB)"
	for line in "${SUMMARY[@]}"; do
		set -- $line
		printf '%5s %12s  %16.1f  %16.1f  %10s  %10s  %15.1f  %14.1f  %16.1f  %17.1f\n' "$1" "$2" "$(awk "BEGIN{print $3/1024}")" "$(awk "BEGIN{print $4/1024}")" "$5" "$6" \
			"$(awk "BEGIN{print $7/1024}")" "$(awk "BEGIN{print $8/1024}")" "$(awk "BEGIN{print $9/1024}")" "$(awk "BEGIN{print ${10}/1024}")"
	done
fi
if [ "$FAILED_TARGETS" -ne 0 ] && [ "${BENCH_STRICT:-0}" = 1 ]; then
	exit 1
fi
exit 0
