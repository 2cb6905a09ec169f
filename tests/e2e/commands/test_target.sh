# reset checkpoint's target checks against the built binary: the Kafka gate
# against an in-process broker (bin/kafkafake), an unreachable broker, and
# the refusal of a Milvus 2.5 root.
. "$(dirname "$0")/../lib.sh"
start_etcd
BK=$WORK/backups
mkdir -p "$BK"

seed --wal pulsar --rootPath by-dev
start_kafka kafka --records by-dev-rootcoord-dml_0=3 --empty by-dev-rootcoord-dml_1

# Topics with records refuse, naming each with its watermarks; nothing is written.
before=$(rev)
run_heron "$(connect_line)
reset checkpoint --target-wal kafka --run --backup-dir $BK --kafka-brokers $KAFKA"
expect_rc 3 "a Kafka topic with records refuses"
expect_out "REFUSED +target topics are fresh" "the gate row is refused"
expect_err "by-dev-rootcoord-dml_0: not empty \(partition 0 watermarks low 0, high 3\)" "the refusal names the topic and its watermarks"
if printf '%s' "$ERR" | grep -q "by-dev-rootcoord-dml_1: not empty"; then fail "the empty topic is named"; else pass "the empty topic is not named"; fi
if [ "$(rev)" = "$before" ]; then pass "refused: nothing written"; else fail "refused: etcd revision moved"; fi
if [ -z "$(ls "$BK")" ]; then pass "refused: no backup file"; else fail "refused: backup left"; fi

# The JSON plan shows the gate with the topic as its key.
run_heron "$(connect_line)
reset checkpoint --target-wal kafka --format json --kafka-brokers $KAFKA"
printf '%s' "$OUT" >"$WORK/plan.json"
if python3 - "$WORK/plan.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
g = [g for g in p["gates"] if g["name"] == "target topics are fresh"][0]
assert not g["ok"] and g["count"] == 1 and p["refused"], g
assert g["keys"] == ["by-dev-rootcoord-dml_0: not empty (partition 0 watermarks low 0, high 3)"], g
PY
then pass "plan JSON: the gate, its count and key"; else fail "plan JSON gate"; fi

# show checkpoint puts each pchannel's topic state beside its checkpoint.
run_heron "$(connect_line)
show checkpoint --kafka-brokers $KAFKA --format json"
expect_rc 0 "show checkpoint --kafka-brokers"
printf '%s' "$OUT" >"$WORK/show.json"
if python3 - "$WORK/show.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = {p["name"]: p["target_topic"]["state"] for p in r["pchannels"]}
assert s == {"by-dev-rootcoord-dml_0": "not empty", "by-dev-rootcoord-dml_1": "empty", "by-dev-rootcoord-dml_2": "absent"}, s
assert r["target"]["wal"] == "kafka" and r["generation"] == "streaming (2.6 or later)", r["target"]
PY
then pass "show checkpoint JSON: target_topic per pchannel"; else fail "show checkpoint JSON target_topic"; fi

# Without the flag: "not checked", and the reminder names the topics and the flag.
run_heron "$(connect_line)
reset checkpoint --target-wal kafka"
expect_rc 0 "unchecked Kafka target: a plan"
expect_out "ok +target topics are fresh +not checked: pass --kafka-brokers" "the gate row says not checked"
expect_out "by-dev-rootcoord-dml_0, by-dev-rootcoord-dml_1, by-dev-rootcoord-dml_2 must be absent or empty.*--kafka-brokers" "the reminder names the topics and the flag"

# --allow-non-empty-target runs with a warning.
run_heron "$(connect_line)
reset checkpoint --target-wal kafka --run --allow-non-empty-target --backup-dir $BK --kafka-brokers $KAFKA"
expect_rc 0 "--allow-non-empty-target runs"
expect_out "warning: --allow-non-empty-target: Kafka topics .*by-dev-rootcoord-dml_0: not empty" "the override is a warning"

# An unreachable broker fails within seconds (exit 1) before anything is written.
stop_kafka
seed --wal pulsar --rootPath unreachable
before=$(rev)
run_heron "$(connect_line unreachable)
reset checkpoint --target-wal kafka --run --backup-dir $BK --kafka-brokers $KAFKA"
expect_rc 1 "an unreachable broker fails"
expect_err "kafka brokers .* are unreachable" "the error says the brokers are unreachable"
if [ "$TOOK" -le 15 ]; then pass "it fails within seconds (${TOOK}s)"; else fail "it took ${TOOK}s"; fi
if [ "$(rev)" = "$before" ]; then pass "unreachable: nothing written"; else fail "unreachable: etcd revision moved"; fi

# A Milvus 2.5 root: show works and says so; every write command refuses it.
seed --wal kafka --rootPath old25 --pre-streaming
run_heron "$(connect_line old25)
show checkpoint"
expect_rc 0 "show checkpoint on a 2.5 root"
expect_out "MILVUS GENERATION: pre-streaming \(2.5 or older\)" "show checkpoint names the generation"
before=$(rev)
run_heron "$(connect_line old25)
reset checkpoint --target-wal woodpecker --run --backup-dir $BK"
expect_rc 3 "reset checkpoint refuses a 2.5 root"
expect_err "pre-streaming \(2.5 or older\).*channelwatch/ \(4 keys\).*no woodpecker MQ" "the refusal says what it found and why"
if [ "$(rev)" = "$before" ]; then pass "2.5 root: nothing written"; else fail "2.5 root: etcd revision moved"; fi
finish
