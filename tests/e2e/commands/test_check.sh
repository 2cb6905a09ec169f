# `check` after a switch (issue 26), against Debian's etcd: etcdtool
# switched seeds an instance restarted after a pulsar -> kafka switch, in
# one situation at a time, with real protobuf bytes and the streaming
# node's session on a lease. The healthy restart is ok (exit 0); every
# other situation gives its verdict and names the exact key.
. "$(dirname "$0")/../lib.sh"

if [ ! -x "$ETCDTOOL" ] || [ -n "$(find "$REPO/tests/e2e/etcdtool" "$REPO/models" -name '*.go' -newer "$ETCDTOOL" | head -1)" ]; then
	(cd "$REPO" && CGO_ENABLED=0 go build -o "$ETCDTOOL" ./tests/e2e/etcdtool) || { echo "test_check: cannot build etcdtool" >&2; exit 1; }
fi
RC=0 OUT="" ERR=""
ROOT=by-dev
M=$ROOT/meta
P0=$ROOT-rootcoord-dml_0
P1=$ROOT-rootcoord-dml_1
situation() { # situation S: a fresh instance in situation S
	ctl del --prefix "$ROOT/" >/dev/null || exit 1
	"$ETCDTOOL" switched --etcd "$ETCD" --from pulsar --wal kafka --situation "$1" || { echo "seeding $1 failed" >&2; exit 1; }
}
check() { run_heron "$(connect_line "$ROOT")
check $*"; }

start_etcd
# A Kafka target that kept records from before the switch.
start_kafka old --records "$P0=3" --empty "$P1"
OLD_KAFKA=$KAFKA
sleep 1

# The pre-switch backup: terms 1..3, pulsar checkpoints.
situation pre
run_heron "$(connect_line "$ROOT")
backup --file $WORK/pre.jsonl"
expect_rc 0 "backup before the switch"
SINCE="--since-backup $WORK/pre.jsonl"
sleep 1
# A Kafka target written only after the switch.
start_kafka new --records "$P0=3,$P1=2"
NEW_KAFKA=$KAFKA

situation healthy
# Refusals: bad flags are usage errors (exit 2), a backup that is missing
# or of another root path an error (exit 1); nothing is judged.
check "--for 1m"
expect_rc 2 "--for without --watch"
expect_err "check: --for goes with --watch" "--for without --watch: says so"
check "--watch --interval 0s"
expect_rc 2 "--interval 0s"
check "--since-backup $WORK/none.jsonl"
expect_rc 1 "a missing --since-backup"
expect_err "--since-backup: backup: open $WORK/none.jsonl" "a missing --since-backup: names the file"
sed 's/"root_path":"by-dev"/"root_path":"other"/' "$WORK/pre.jsonl" >"$WORK/other.jsonl"
check "--since-backup $WORK/other.jsonl"
expect_rc 1 "a backup of another root path (or a changed one)"
check "--kafka-brokers 127.0.0.1:1 --target-wal pulsar"
expect_rc 2 "--kafka-brokers with a pulsar target"
check "--pulsar-admin http://127.0.0.1:1"
expect_rc 2 "--pulsar-admin: check reads a Kafka target alone"
check "--help"
if printf '%s' "$OUT" | grep -q -- "--pulsar-"; then fail "check --help lists no --pulsar-* flag"; else pass "check --help lists no --pulsar-* flag"; fi

check "$SINCE"
expect_rc 0 "healthy restart"
expect_out '^check: ok \(target WAL kafka, the majority: 3 of 3' "healthy: ok, the target is the majority"
expect_out '^ok +pchannel-assignment +3 pchannel\(s\) ASSIGNED on 1 live streaming node\(s\), every term above the pre-switch one' "healthy: assignment ok"
for it in wal-names progress replay broadcast-tasks vchannel-registration recovery-storage replicate-pchannels; do
	expect_out "^ok +$it " "healthy: $it ok"
done
check "$SINCE --format json"
expect_rc 0 "healthy: json"
if printf '%s' "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["verdict"]=="ok" and len(d["items"])==8 and not any("commands" in i for i in d["items"]), d' 2>/dev/null; then pass "healthy: one JSON document, verdict ok, eight items, no repair named"; else fail "healthy: json"; fi
check "$SINCE --kafka-brokers $NEW_KAFKA"
expect_rc 0 "healthy: the Kafka target holds only records written after the switch"
expect_out "^ok +replay .*3 Kafka topic\(s\) read, none holding records older than the switch" "healthy: Kafka topics read"
check "$SINCE --kafka-brokers $OLD_KAFKA"
expect_rc 1 "Kafka records older than the switch"
expect_out "^FAIL +replay +Kafka topic $P0 holds records written before the switch" "old Kafka records: FAIL names the topic"
expect_out "key: $M/streamingnode-meta/wal/$P0/consume-checkpoint\$" "old Kafka records: the pchannel's checkpoint key"
run_heron "$(connect_line "$ROOT")
show wal-distribution"
expect_out "^$P0 +ASSIGNED +5 +7 +yes +kafka" "show wal-distribution: dml_0 on live node 7 at term 5, kafka"
run_heron "$(connect_line "$ROOT")
show vchannel-health"
expect_out "${P0}_400v0 .*DROPPED" "show vchannel-health: the dropped vchannel is flagged DROPPED"
expect_out "0 over the max lag 15m0s \(default\)" "show vchannel-health: nothing over datacoord's default 900 s"

situation unassigned
check "$SINCE"
expect_rc 1 "pchannel UNINITIALIZED"
expect_out "^FAIL +pchannel-assignment +$P0 is UNINITIALIZED" "unassigned: FAIL names the pchannel"
expect_out "key: $M/streamingcoord-meta/pchannel/$P0\$" "unassigned: the exact key"

situation no-session
check "$SINCE"
expect_rc 1 "node without a session"
expect_out "assigned to streaming node 8, which has no live session" "no-session: FAIL"
expect_out "key: $M/session/streamingnode-8\$" "no-session: the session key"

situation old-wal
check "$SINCE --target-wal kafka"
expect_rc 1 "a consume checkpoint still on pulsar"
expect_out "^FAIL +wal-names +consume checkpoint of $P0 names pulsar, not kafka" "old-wal: FAIL"
expect_out "key: $M/streamingnode-meta/wal/$P0/consume-checkpoint\$" "old-wal: the exact key"

situation tick-back
check "$SINCE"
expect_rc 1 "time tick behind the pre-switch one"
expect_out "^FAIL +replay +consume checkpoint time tick of $P0 is behind the pre-switch one" "tick-back: FAIL"
expect_out "key: $M/streamingnode-meta/wal/$P0/consume-checkpoint\$" "tick-back: the exact key"

situation lag
check "$SINCE"
expect_rc 1 "channel checkpoint lag over datacoord's max lag"
expect_out "^FAIL +progress +channel checkpoint of ${P0}_100v0 lags wall clock by 1h0m.*over datacoord's max lag 15m0s" "lag: FAIL with the 900 s rule"
expect_out "key: $M/datacoord-meta/channel-cp/${P0}_100v0\$" "lag: the exact key"
expect_out "^repair checkpoint --vchannel ${P0}_100v0 --set-to pchannel-cp\$" "lag: the repair's command, whole at the margin"
check "$SINCE --format json"
if printf '%s' "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); i=[i for i in d["items"] if i["item"]=="progress"][0]; assert i["commands"][0]=="repair checkpoint --vchannel '"${P0}"'_100v0 --set-to pchannel-cp", i' 2>/dev/null; then pass "lag: the JSON item carries the command"; else fail "lag: json commands"; fi
ctl put "$ROOT/config/dataCoord.compaction.channelMaxCPLag" 7200 >/dev/null
check "$SINCE"
expect_rc 0 "lag: within an instance's own 2 h max lag (config/dataCoord.compaction.channelMaxCPLag)"

situation dropped-only
check "$SINCE"
expect_rc 0 "dropped vchannels only: ok, the marker is never judged"
expect_out "^ok +progress +0 live channel checkpoint" "dropped-only: no live checkpoint judged"

situation broadcast-pending
check "$SINCE"
expect_rc 0 "broadcast task pending, one read: a warning"
expect_out "^WARN +broadcast-tasks +broadcast task 2 is Pending" "broadcast-pending: WARN"
check "$SINCE --watch --interval 1s --for 2s --stuck-after 1s"
expect_rc 1 "broadcast task pending across reads"
expect_out "^FAIL +broadcast-tasks +broadcast task 2 has been Pending for" "broadcast-pending: FAIL when unchanged"
expect_out "key: $M/streamingcoord-meta/broadcast-task/2\$" "broadcast-pending: the exact key"
expect_out "^ +repair wal-broadcast-task --id 2 --mode reset\$" "broadcast-pending: the repair's command"

situation unregistered
check "$SINCE"
expect_rc 1 "missing vchannel registration"
expect_out "^FAIL +vchannel-registration +vchannel ${P0}_100v0 of live collection 100 is not registered" "unregistered: FAIL"
expect_out "key: $M/streamingnode-meta/wal/$P0/vchannel/${P0}_100v0\$" "unregistered: the exact key"
expect_out "^ +repair vchannel-registration --vchannel ${P0}_100v0\$" "unregistered: the repair's command"

# A woodpecker target whose logs were written before the switch (the real
# client's metadata, states/resetwal/testdata/wp_milvus30.json): replayed.
ctl del --prefix "$ROOT/" >/dev/null
"$ETCDTOOL" switched --etcd "$ETCD" --from pulsar --wal woodpecker --situation healthy || exit 1
check "$SINCE"
expect_rc 0 "woodpecker target without logs yet: ok"
expect_out "^ok +replay .*0 woodpecker log\(s\), none created before the switch" "woodpecker: no log"
"$ETCDTOOL" wpseed --etcd "$ETCD" --file "$REPO/states/resetwal/testdata/wp_milvus30.json" || exit 1
check "$SINCE"
expect_rc 1 "woodpecker logs created before the switch"
expect_out "^FAIL +replay +woodpecker log $ROOT/woodpecker/logs/$P0 was created before the switch \(LogMeta.creation_timestamp " "woodpecker: FAIL names the log and the field its time comes from"
expect_out "key: $ROOT/woodpecker/logs/$P0\$" "woodpecker: the exact key"
ctl del --prefix "$ROOT/woodpecker/" >/dev/null

# The term rises between two reads while the checkpoints stand still.
situation healthy
printf '%s\n' "$(connect_line "$ROOT")" "check $SINCE --watch --interval 2s" | "$HERON" >"$WORK/out" 2>"$WORK/err" &
hpid=$!
# The first read is done: the term rises before the second (2 s later); a
# loaded machine may take its time to start heron and read.
for _ in $(seq 1 1200); do
	grep -q "check: read 1 " "$WORK/err" && break
	kill -0 "$hpid" 2>/dev/null || break
	sleep 0.05
done
grep -q "check: read 1 " "$WORK/err" || { echo "test_check: the watch never finished its first read: $(cat "$WORK/err")" >&2; exit 1; }
"$ETCDTOOL" pchannel --etcd "$ETCD" --name "$P1" --term 9
wait $hpid
RC=$? OUT=$(cat "$WORK/out") ERR=$(cat "$WORK/err")
expect_rc 1 "term rising between reads"
expect_out "$P1 term rose 5 -> 9 between reads while its consume checkpoint stood still: a crash loop" "term-rising: crash loop"
expect_out "key: $M/streamingcoord-meta/pchannel/$P1\$" "term-rising: the exact key"

# The online switch, stage by stage.
situation online-flushing
check "--online --target-wal kafka"
expect_rc 0 "online switch in FLUSHING: in progress"
expect_out "^WARN +online-switch +in progress: broadcast 3 Pending: 1 of 4 vchannel\(s\) acked \(waiting on $P1, $ROOT-rootcoord-dml_2\); pchannels: 3 FLUSHING" "online-flushing: progress"
check "--online --target-wal kafka --watch --interval 1s --for 2s --stuck-after 1s"
expect_rc 1 "online switch stuck in FLUSHING"
expect_out "^FAIL +online-switch +$ROOT-rootcoord-dml_[0-9] (has stayed in stage FLUSHING for|is still in stage FLUSHING [0-9]+s after the switch message)" "online stuck: FAIL"
check "--online --target-wal kafka --stuck-after 1s"
expect_rc 1 "online switch message older than --stuck-after, one read"
expect_out "^FAIL +online-switch +$P0 is still in stage FLUSHING [0-9]+s after the switch message" "online stuck, one read: FAIL from alter_wal_state.time_tick"
expect_out "key: $M/streamingnode-meta/wal/$P0/consume-checkpoint\$" "online stuck: the exact key"

situation online-advance
check "--online --target-wal kafka"
expect_rc 0 "online switch in ADVANCE_CHECKPOINT"
expect_out "pchannels: 3 ADVANCE_CHECKPOINT" "online-advance: progress"

situation online-early-mqtype
check "--online --target-wal kafka"
expect_rc 1 "mq.type flipped before the pchannels switched"
expect_out "config/mqtype already says kafka while 3 pchannel\(s\).*milvus#52948" "online-early-mqtype: the #52948 signature"
expect_out "key: $ROOT/config/mqtype\$" "online-early-mqtype: the exact key"

# The online switch's config (a SASL password) in alter_wal_state.configs
# and in the AlterWAL broadcast header: masked in every output shown, kept
# byte for byte in a backup (mode 0600), revealed with --show-secrets.
situation online-secrets
ctl put "$ROOT/config/kafka.saslPassword" hunter2-secret >/dev/null
for cmd in "check --online --target-wal kafka --format json" "show config-etcd" "show config-etcd --format json" \
	"show etcd-kv --prefix / --decode --format json" "show etcd-kv --prefix / --format line" "show broadcast-task --format json"; do
	run_heron "$(connect_line "$ROOT")
$cmd"
	if printf '%s%s' "$OUT" "$ERR" | grep -q hunter2-secret; then fail "secrets: $cmd prints the password"; else pass "secrets: $cmd masks it"; fi
done
run_heron "$(connect_line "$ROOT")
show etcd-kv --key meta/streamingnode-meta/wal/$P0/consume-checkpoint --decode --format json"
expect_out '"kafka.saslPassword": "\(masked: --show-secrets\)"' "secrets: the decoded alter_wal_state.configs names the key, masks the value"
run_heron "$(connect_line "$ROOT")
show etcd-kv --key meta/streamingnode-meta/wal/$P0/consume-checkpoint --decode --format json --show-secrets"
expect_out '"kafka.saslPassword": "hunter2-secret"' "secrets: --show-secrets reveals it"
run_heron "$(connect_line "$ROOT")
backup --file $WORK/secret.jsonl"
expect_rc 0 "secrets: backup"
if python3 -c 'import base64,json,sys
for l in open(sys.argv[1]).readlines()[1:-1]:
    e=json.loads(l)
    if b"hunter2-secret" in base64.b64decode(e["value"]): sys.exit(0)
sys.exit(1)' "$WORK/secret.jsonl"; then pass "secrets: the backup keeps the bytes"; else fail "secrets: the backup lost the bytes"; fi
if [ "$(stat -c %a "$WORK/secret.jsonl")" = 600 ]; then pass "secrets: the backup is 0600"; else fail "secrets: backup mode $(stat -c %a "$WORK/secret.jsonl")"; fi

situation healthy
check "--online --target-wal kafka"
expect_rc 0 "online switch complete"
expect_out "^ok +online-switch +switch to kafka complete" "online: complete"

finish
