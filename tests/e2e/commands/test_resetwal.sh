# reset wal against Debian's etcd, on woodpecker metadata written by the real client
# (states/resetwal/testdata, tests/wpfixtures): plan, run, restore, then reset checkpoint to
# woodpecker; the legacy prefix shared with another instance. No object storage here: the
# plan says the objects stay (states/resetwal's tests cover --minio-* with an in-process S3).
. "$(dirname "$0")/../lib.sh"
start_etcd
BK=$WORK/backups
mkdir -p "$BK"
FIX=$REPO/states/resetwal/testdata

seed --wal pulsar --rootPath by-dev
"$ETCDTOOL" wpseed --etcd "$ETCD" --file "$FIX/wp_milvus30.json"
dump >"$WORK/before.dump"

# Dry run: the plan lists the instance's logs (dml_0..dml_2) under by-dev/woodpecker/, writes nothing.
before=$(rev)
run_heron "$(connect_line)
reset wal --target woodpecker --format json"
expect_rc 0 "dry run"
if [ "$(rev)" = "$before" ]; then pass "dry run writes nothing"; else fail "dry run moved the revision"; fi
printf '%s' "$OUT" >"$WORK/plan.json"
if python3 - "$WORK/plan.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["effective_prefix"]["prefix"] == "by-dev/woodpecker", p["effective_prefix"]
names = sorted(l["name"] for l in p["logs"])
assert names == ["by-dev-rootcoord-dml_0", "by-dev-rootcoord-dml_1", "by-dev-rootcoord-dml_2"], names
dml2 = [l for l in p["logs"] if l["name"] == "by-dev-rootcoord-dml_2"][0]
assert dml2["segments"] == 0 and dml2["truncated_segment"] == 0, dml2
assert not p["objects"]["reachable"] and "never reused" in p["objects"]["note"], p["objects"]
assert p["keys"] > 0
PY
then pass "the plan names the logs, the truncated log without segments, the objects left"; else fail "plan JSON"; fi

# local storage: refused without --allow-data-left.
run_heron "$(connect_line)
reset wal --target woodpecker --storage-type local --run --backup-dir $BK"
expect_rc 3 "local storage refused without --allow-data-left"

# The run: the logs go, logidgen and the logs of other names stay.
run_heron "$(connect_line)
reset wal --target woodpecker --run --backup-dir $BK"
expect_rc 0 "reset wal --run"
expect_err "backup: .*heron-backup" "the backup file is named"
dump >"$WORK/after.dump"
if ! grep -qE '^by-dev/woodpecker/logs/by-dev-rootcoord-dml_[012](/|	)' "$WORK/after.dump"; then pass "no log of the instance's pchannels left"; else fail "logs left"; fi
if grep -q '^by-dev/woodpecker/logidgen	' "$WORK/after.dump" && [ "$(grep '^by-dev/woodpecker/logidgen	' "$WORK/before.dump")" = "$(grep '^by-dev/woodpecker/logidgen	' "$WORK/after.dump")" ]; then pass "logidgen kept"; else fail "logidgen changed"; fi
if grep -q '^by-dev/woodpecker/logs/by-dev-rootcoord-dml_10	' "$WORK/after.dump"; then pass "a log not named after a pchannel of the instance is kept"; else fail "dml_10 went"; fi

run_heron "$(connect_line)
reset wal --target woodpecker --run --backup-dir $BK"
expect_rc 0 "second run"
expect_out "nothing to write|none in scope" "a second run finds nothing"

# restore puts every key back byte for byte.
backup=$(ls "$BK"/heron-backup-by-dev-reset-wal-*.jsonl | head -1)
run_heron "$(connect_line)
restore --file $backup --run --backup-dir $BK"
expect_rc 0 "restore --run"
dump >"$WORK/restored.dump"
if diff -q "$WORK/before.dump" "$WORK/restored.dump" >/dev/null; then pass "restore puts every key back byte for byte"; else fail "restore differs: $(diff "$WORK/before.dump" "$WORK/restored.dump" | head -5)"; fi

# reset wal, then reset checkpoint to woodpecker.
run_heron "$(connect_line)
reset wal --target woodpecker --run --backup-dir $BK
reset checkpoint --target-wal woodpecker --run --backup-dir $BK"
expect_rc 0 "reset wal then reset checkpoint --target-wal woodpecker"
expect_out "wrote [0-9]+ of [0-9]+ keys" "reset checkpoint wrote its keys"

# The legacy woodpecker/ prefix shared with another instance: only by-dev's logs go.
"$ETCDTOOL" wpseed --etcd "$ETCD" --file "$FIX/wp_legacy.json"
dump --prefix woodpecker/ | grep 'other-rootcoord' >"$WORK/other.before"
run_heron "$(connect_line)
reset wal --target woodpecker --run --backup-dir $BK"
expect_rc 0 "reset wal on the legacy prefix"
expect_out "woodpecker/ \(legacy" "the plan names the legacy prefix"
dump --prefix woodpecker/ >"$WORK/legacy.after"
grep 'other-rootcoord' "$WORK/legacy.after" >"$WORK/other.after"
if diff -q "$WORK/other.before" "$WORK/other.after" >/dev/null && [ -s "$WORK/other.after" ]; then pass "the other instance's logs survive byte for byte"; else fail "the other instance's logs changed"; fi
if ! grep -qE '^woodpecker/logs/by-dev-rootcoord-dml_[012](/|	)' "$WORK/legacy.after"; then pass "by-dev's legacy logs emptied"; else fail "by-dev's legacy logs left"; fi
finish
