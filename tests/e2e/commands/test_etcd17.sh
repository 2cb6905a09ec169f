# Production etcd realities against Debian's etcd (issue 17): an etcd that
# runs out of space mid-write (--quota-backend-bytes) stops the reset saying
# the transaction was NOT applied and how to recover; the alarm gate then
# refuses every write until the recovery; after it a re-run completes to the
# bytes of an uninterrupted run. A user that may not write every prefix the
# reset writes is refused before the first write, naming the prefix and the user.
#
# The quota is derived from sizes measured here, not a fixed margin: etcd 3.4
# checks a write against the backend size it last committed (every 100 ms by
# default), so a pipelined reset could write its whole ~1.4 MiB before etcd
# saw the size pass a fixed quota (no NOSPACE); and a run that stopped early
# left more to re-write (each put a new revision) than the quota held after
# defrag (NOSPACE again). etcd here commits after every write
# (--backend-batch-limit 1: the size is current), and the quota sits 3/4 of
# the way through the reset's measured growth: the run stops past half way,
# and the re-run's rest fits after the recovery. The recovery compacts with
# --physical (as heron says): a plain compact returns before etcd removed the
# old revisions, and the defrag right after it reclaimed nothing.
. "$(dirname "$0")/../lib.sh"

use_gen
status() { ctl endpoint status -w json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["Status"]'"$1"')'; }
rev() { status '["header"]["revision"]'; }
show_err() { [ -z "${E2E_VERBOSE:-}" ] || printf '  | %s\n' "$ERR"; }

# The etcd of each case: on the ports of this script, its data in its own
# folder.
PORT=$(free_port)
PEER=$(free_port)
reset_run() { # reset_run BACKUP_DIR
	mkdir -p "$1"
	run_heron "$(connect_line)
reset checkpoint --target-wal woodpecker --run --backup-dir $1"
}

# --- the reference: an uninterrupted run ----------------------------------
etcd_up "$PORT" "$PEER" "$WORK/ref" --backend-batch-limit 1
# shellcheck disable=SC2086
"$GEN" seed --etcd "$ETCD" $GENFLAGS >/dev/null || { echo "seeding failed" >&2; exit 1; }
seeded=$(status '["dbSize"]')
reset_run "$WORK/bk-ref"
expect_rc 0 "reference: an uninterrupted reset"
# What the reset adds to this database (every key written keeps a new revision).
grow=$(($(status '["dbSize"]') - seeded))
[ "$grow" -gt 400000 ] || { echo "the reference reset grew etcd's database by only $grow bytes" >&2; exit 1; }
dump --prefix by-dev/ >"$WORK/ref.dump" || exit 1
stop_etcd

# --- NOSPACE mid-write ------------------------------------------------------
etcd_up "$PORT" "$PEER" "$WORK/full" --backend-batch-limit 1
# shellcheck disable=SC2086
"$GEN" seed --etcd "$ETCD" $GENFLAGS >/dev/null || { echo "seeding failed" >&2; exit 1; }
run_heron "$(connect_line)
reset checkpoint --target-wal woodpecker"
expect_rc 0 "dry run"
expect_out "etcd space: the write adds about [0-9.]+ (KiB|MiB) to etcd's database of [0-9.]+ (KiB|MiB)" "the plan shows the bytes it writes beside etcd's database size"
# A quota 3/4 of the way through the reset's growth: the writes pass it.
size=$(status '["dbSize"]')
stop_etcd
etcd_up "$PORT" "$PEER" "$WORK/full" --backend-batch-limit 1 --quota-backend-bytes $((size + grow * 3 / 4))
reset_run "$WORK/bk-full"
show_err
expect_rc 1 "out of space mid-write: the run stops"
expect_err "(which was NOT applied: etcd is out of space|applied transaction [0-9]+ .* and then reported that etcd is out of space)" "the stop says whether etcd applied the transaction it refused"
expect_err "etcdctl --endpoints=$ETCD compact --physical [0-9]+\).*defrag --cluster.*alarm disarm.*then re-run heron: stopped after [0-9]+ transactions" "the recovery comes before re-run"
if printf '%s' "$ERR" | grep -q "may or may not"; then fail "a refusal is reported as an unknown outcome"; else pass "no 'may or may not be written'"; fi
alarms=$(ctl alarm list)
case "$alarms" in *NOSPACE*) pass "etcd raised NOSPACE" ;; *) fail "no NOSPACE alarm: $alarms" ;; esac

# The alarm gate: refused before anything is written, no backup left.
before=$(rev)
n=$(find "$WORK/bk-full" -name '*.jsonl' | wc -l)
reset_run "$WORK/bk-full"
expect_rc 3 "under NOSPACE: the re-run is refused"
expect_out "REFUSED +no etcd alarm" "the alarm gate refuses"
expect_err "nothing was written.*alarm disarm" "the refusal says nothing was written and how to recover"
if [ "$(rev)" = "$before" ]; then pass "refused: etcd revision unchanged"; else fail "refused: etcd revision moved"; fi
if [ "$(find "$WORK/bk-full" -name '*.jsonl' | wc -l)" = "$n" ]; then pass "refused: no backup left"; else fail "refused: a backup was left"; fi
first=$(find "$WORK/bk-full" -name '*.jsonl' | head -1)
run_heron "$(connect_line)
restore --file $first --run --backup-dir $WORK/bk-full"
expect_rc 3 "under NOSPACE: restore is refused too"

# The recovery the message names, then the re-run completes.
r=$(rev)
ctl compact --physical "$r" >/dev/null && ctl defrag --cluster >/dev/null && ctl alarm disarm >/dev/null || { echo "recovery failed" >&2; exit 1; }
reset_run "$WORK/bk-full"
show_err
expect_rc 0 "after compact, defrag and alarm disarm: the re-run completes"
expect_out "verify: ok" "verify: ok"
dump --prefix by-dev/ >"$WORK/full.dump" || exit 1
same "$WORK/ref.dump" "$WORK/full.dump" "byte for byte the uninterrupted run's keys"
stop_etcd

# --- partial permissions -------------------------------------------------------
etcd_up "$PORT" "$PEER" "$WORK/auth"
seed --wal pulsar >/dev/null || { echo "seeding failed" >&2; exit 1; }
PASS=e17-secret
{
	ctl user add "root:$PASS" &&
		ctl role add by-dev-read &&
		ctl role grant-permission by-dev-read --prefix=true read by-dev/ &&
		ctl role add datacoord-rw &&
		ctl role grant-permission datacoord-rw --prefix=true readwrite by-dev/meta/datacoord-meta/ &&
		ctl user add "dc:$PASS" && ctl user grant-role dc by-dev-read && ctl user grant-role dc datacoord-rw &&
		ctl user add "ro:$PASS" && ctl user grant-role ro by-dev-read &&
		ctl auth enable
} >"$WORK/auth.log" 2>&1 || { echo "enabling etcd auth failed:" >&2; cat "$WORK/auth.log" >&2; exit 1; }
for user in dc ro; do
	before=$(ctl --user "root:$PASS" endpoint status -w json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["Status"]["header"]["revision"])')
	mkdir -p "$WORK/bk-$user"
	run_heron "connect --etcd $ETCD --rootPath by-dev --etcdUserName $user --etcdPassword $PASS
reset checkpoint --target-wal kafka --run --backup-dir $WORK/bk-$user"
	show_err
	expect_rc 3 "$user: refused before the first write"
	expect_err "etcd user \"$user\" may not read and write by-dev/[^ ]+ .*nothing was written" "$user: the refusal names the user and the prefix"
	after=$(ctl --user "root:$PASS" endpoint status -w json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["Status"]["header"]["revision"])')
	if [ "$after" = "$before" ]; then pass "$user: etcd revision unchanged"; else fail "$user: etcd revision moved"; fi
	if [ -z "$(find "$WORK/bk-$user" -name '*.jsonl')" ]; then pass "$user: no backup left"; else fail "$user: a backup was left"; fi
done
mkdir -p "$WORK/bk-root"
run_heron "connect --etcd $ETCD --rootPath by-dev --etcdUserName root --etcdPassword $PASS
reset checkpoint --target-wal kafka --run --backup-dir $WORK/bk-root"
expect_rc 0 "root may write every prefix: the run completes"
finish
