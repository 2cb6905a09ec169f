# show commands against a real etcd seeded with the sample instance, for each WAL.
. "$(dirname "$0")/../lib.sh"
start_etcd

for wal in pulsar kafka woodpecker rocksmq; do
	root="e2e-$wal"
	seed --wal "$wal" --rootPath "$root"
	run_heron "$(connect_line "$root")
show checkpoint --format json"
	expect_rc 0 "$wal: show checkpoint --format json"
	printf '%s' "$OUT" >"$WORK/cp.json"
	if python3 - "$WORK/cp.json" "$root" "$wal" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
root, wal = sys.argv[2], sys.argv[3]
names = {v["name"] for v in doc["vchannels"]}
want = {f"{root}-rootcoord-dml_0_100v0", f"{root}-rootcoord-dml_1_100v1",
        f"{root}-rootcoord-dml_1_200v0", f"{root}-rootcoord-dml_2_300v0"}
missing = want - names
assert not missing, f"vchannels missing: {missing}"
levels = {v["name"]: v["level"] for v in doc["vchannels"]}
assert levels[f"{root}-rootcoord-dml_0_100v0"] == "channel-cp", levels
assert levels[f"{root}-rootcoord-dml_1_200v0"] == "segment", levels
assert levels[f"{root}-rootcoord-dml_2_300v0"] == "collection-start", levels
assert all(p["wal"] == wal for p in doc["pchannels"]), doc["pchannels"]
assert not doc.get("split_pchannels"), doc.get("split_pchannels")
PY
	then pass "$wal: every vchannel named, levels and WAL right"; else fail "$wal: show checkpoint JSON"; fi
done

run_heron "$(connect_line e2e-pulsar)
show checkpoint"
expect_rc 0 "show checkpoint table"
expect_out "100:5:0:-1|150:55:0:-1" "table shows decoded pulsar ids"

run_heron "$(connect_line e2e-pulsar)
show segment --state Flushed --format line"
expect_rc 0 "show segment --state Flushed"
expect_out "1001" "flushed segment listed"
if printf '%s' "$OUT" | grep -q "1003"; then fail "dropped segment 1003 must be filtered out"; else pass "state filter drops Dropped segments"; fi

run_heron "$(connect_line e2e-pulsar)
show segment --state Bogus"
expect_rc 2 "bad --state is a usage error"
expect_err "state" "the error names the flag"

run_heron "$(connect_line e2e-pulsar)
show session
show collections
show broadcast-task"
expect_rc 0 "show session, collections, broadcast-task"
expect_out "Tombstone" "broadcast tombstone shown"
expect_out "movies" "legacy-layout collection shown"

finish
