# reset checkpoint against Debian's etcd: dry run, each refusal, one full run, show checkpoint after.
. "$(dirname "$0")/../lib.sh"
start_etcd
BK=$WORK/backups
mkdir -p "$BK"

# Each gate refuses with exit 3 and leaves etcd's revision where it was.
for gate in live-session growing sealed flushing segment-assign broadcast-pending broadcast-waitack broadcast-replicated; do
	root="gate-$gate"
	seed --wal pulsar --rootPath "$root" --gate "$gate"
	before=$(rev)
	run_heron "$(connect_line "$root")
reset checkpoint --target-wal woodpecker --run --backup-dir $BK"
	expect_rc 3 "$gate: reset refused"
	if [ "$(rev)" = "$before" ]; then pass "$gate: nothing written"; else fail "$gate: etcd revision moved"; fi
	# The live session's lease (120 s) would expire during a later case on a
	# loaded machine, its key's deletion moving the revision: revoked here.
	if [ "$gate" = live-session ]; then
		for lease in $(ctl lease list | awk 'NR > 1 { print $1 }'); do ctl lease revoke "$lease" >/dev/null; done
	fi
done

seed --wal pulsar --rootPath gate-growing-allowed --gate growing
run_heron "$(connect_line gate-growing-allowed)
reset checkpoint --target-wal kafka --allow-growing --backup-dir $BK"
expect_rc 0 "--allow-growing lets the plan through"
expect_out "LOST|lost" "--allow-growing says the unflushed rows are lost"

# Bad input: usage errors naming what is wrong.
seed --wal pulsar --rootPath by-dev --mqtype
run_heron "$(connect_line)
reset checkpoint --target-wal natsmq"
expect_rc 2 "unknown --target-wal"
expect_err "woodpecker" "the error lists the valid WALs"
run_heron "$(connect_line)
reset checkpoint --target-wal kafka --pchannel no-such-pchannel"
expect_rc 2 "unknown --pchannel"
expect_err "by-dev-rootcoord-dml_0" "the error lists the pchannels that exist"

# Dry run: the plan, and nothing written.
before=$(rev)
run_heron "$(connect_line)
reset checkpoint --target-wal woodpecker --format json"
expect_rc 0 "dry run"
if [ "$(rev)" = "$before" ]; then pass "dry run writes nothing"; else fail "dry run moved the revision"; fi
printf '%s' "$OUT" >"$WORK/plan.json"
if python3 - "$WORK/plan.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["target_wal"] == "woodpecker" and not p["refused"], p
kinds = {r["kind"] for r in p["rewrites"]}
assert {"segment", "channel-cp", "collection-info", "consume-checkpoint"} <= kinds, kinds
assert any(d["kind"] == "query-target" and d["unit"] == "prefix" for d in p["deletions"]), p["deletions"]
assert p["not_touched"] and p["reminders"], p
PY
then pass "the plan names the rewrites, the prefix deletions, the not-touched notice"; else fail "plan JSON"; fi

# One full run, then show checkpoint names woodpecker everywhere, and a second run plans nothing.
dump >"$WORK/before.dump"
run_heron "$(connect_line)
reset checkpoint --target-wal woodpecker --run --backup-dir $BK
show checkpoint --format json"
expect_rc 0 "reset --run then show checkpoint"
expect_err "backup: .*heron-backup" "the backup file is named"
expect_out "verify: ok" "the run is verified"
if printf '%s' "$OUT" | awk '/^gates:/ { g = NR } /: wrote [0-9]+ of/ { w = NR } END { exit !(g && w && g < w) }'; then
	pass "--run prints the plan (its gates) before what it wrote"
else fail "--run: no plan before the write"; fi
if printf '%s' "$ERR" | grep -q '\[y/N\]'; then fail "script mode asked a question"; else pass "script mode asks no question"; fi
printf '%s' "$OUT" | sed -n '/^{/,$p' >"$WORK/cp.json"
if python3 - "$WORK/cp.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert all(p["wal"] == "woodpecker" for p in d["pchannels"]), d["pchannels"]
live = [v for v in d["vchannels"] if not v["dropped"]]
assert live and all(v["wal"] == "woodpecker" and v["message_id_human"] == "0:0" for v in live), live
assert not d["split_pchannels"], d["split_pchannels"]
PY
then pass "show checkpoint after the run: every position on woodpecker earliest, no split"; else fail "show checkpoint after the run"; fi
if dump --prefix by-dev/config/mqtype | grep -q "$(python3 -c "print(b'woodpecker'.hex())")"; then pass "config/mqtype rewritten"; else fail "config/mqtype not rewritten"; fi
if dump --prefix by-dev/meta/datacoord-meta/channel-removal/ | cmp -s - <(grep "^by-dev/meta/datacoord-meta/channel-removal/" "$WORK/before.dump"); then pass "channel-removal markers untouched"; else fail "channel-removal markers changed"; fi

before=$(rev)
run_heron "$(connect_line)
reset checkpoint --target-wal woodpecker --run --backup-dir $BK"
expect_rc 0 "second run"
if [ "$(rev)" = "$before" ]; then pass "a second run plans and writes nothing"; else fail "second run wrote"; fi

# restore from the backup puts the original back byte for byte.
backup=$(ls "$BK"/heron-backup-by-dev-reset-woodpecker-*.jsonl | head -1)
run_heron "$(connect_line)
restore --file $backup --run --backup-dir $BK"
expect_rc 0 "restore --run"
dump >"$WORK/restored.dump" || fail "dump after restore: etcdtool failed"
same "$WORK/restored.dump" "$WORK/before.dump" "restore returns the keyspace byte for byte"

# One WAL for the whole instance: a scoped run on a mixed instance is refused,
# naming the other pchannels and their WAL; nothing is written.
seed --wal pulsar --rootPath mixed
before=$(rev)
run_heron "$(connect_line mixed)
reset checkpoint --target-wal kafka --pchannel mixed-rootcoord-dml_0 --run --backup-dir $BK"
expect_rc 3 "a scoped run on a mixed instance is refused"
expect_err "one WAL for the whole instance" "the refusal names the one-WAL gate"
expect_err "mixed-rootcoord-dml_1 \(pulsar:[0-9]+\).*mixed-rootcoord-dml_2 \(pulsar:[0-9]+\)" "it names the other pchannels and their WAL"
expect_err "run without --pchannel" "it says to run without --pchannel"
if [ "$(rev)" = "$before" ]; then pass "refused scoped run: nothing written"; else fail "refused scoped run moved the revision"; fi

# A scoped run that completes the instance (the others already on kafka) goes through.
seed --wal pulsar --rootPath completes
"$ETCDTOOL" move --etcd "$ETCD" --rootPath completes --wal kafka --pchannels completes-rootcoord-dml_1,completes-rootcoord-dml_2
run_heron "$(connect_line completes)
reset checkpoint --target-wal kafka --pchannel completes-rootcoord-dml_0 --run --backup-dir $BK
show checkpoint --format json"
expect_rc 0 "a scoped run that completes the instance"
expect_out "verify: ok" "the completing run is verified"
printf '%s' "$OUT" | sed -n '/^{/,$p' >"$WORK/cp-completes.json"
if python3 - "$WORK/cp-completes.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert all(p["wal"] == "kafka" for p in d["pchannels"]), d["pchannels"]
assert not d["split_pchannels"], d["split_pchannels"]
PY
then pass "after the completing run every pchannel is on kafka"; else fail "show checkpoint after the completing run"; fi
if dump --prefix completes/config/mqtype | grep -q "$(python3 -c "print(b'kafka'.hex())")"; then pass "config/mqtype created as kafka"; else fail "config/mqtype not created"; fi

# An interrupted online switch (alter_wal_state, stage ADVANCE_CHECKPOINT) is cleared.
seed --wal pulsar --rootPath alter --alter-stage advance-checkpoint
run_heron "$(connect_line alter)
reset checkpoint --target-wal rocksmq --run --format json --backup-dir $BK"
expect_rc 0 "reset of an instance with an interrupted online switch"
printf '%s' "$OUT" >"$WORK/alter.json"
if python3 - "$WORK/alter.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["plan"]
k = [x for x in p["rewrites"] if x["kind"] == "alter-wal-state"]
assert k and k[0]["keys"] == 1, p["rewrites"]
ex = k[0]["examples"][0]
assert ex["before"] == "online switch to kafka, stage ADVANCE_CHECKPOINT" and ex["after"] == "cleared", ex
assert any("alter-rootcoord-dml_0 (online switch to kafka, stage ADVANCE_CHECKPOINT)" in w for w in p["warnings"]), p["warnings"]
assert r["verify"]["ok"], r["verify"]
PY
then pass "the plan lists alter-wal-state and warns; verify ok"; else fail "alter-wal-state plan"; fi
run_heron "$(connect_line alter)
show checkpoint --format json"
printf '%s' "$OUT" | sed -n '/^{/,$p' >"$WORK/cp-alter.json"
if python3 - "$WORK/cp-alter.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert all(p.get("alter_wal") is None and p["wal"] == "rocksmq" for p in d["pchannels"]), d["pchannels"]
PY
then pass "show checkpoint: no alter_wal_state left, every pchannel on rocksmq"; else fail "alter_wal_state left"; fi

# On a terminal (a pty with a size, so that the REPL runs), --run asks before
# the first write: no writes nothing, yes writes, --yes does not ask (on
# the by-dev instance the restore above brought back).

mkdir -p "$WORK/pty"
cat >"$WORK/pty.py" <<'PY'
import sys, termios, time
import ptyshell

heron, connect, bk = sys.argv[1], sys.argv[2], sys.argv[3]
t = ptyshell.Terminal(heron, {"HOME": bk})
check = ptyshell.Checks("terminal: ")

check(t.expect(r"Offline > ", 20), "the REPL prompts")
t.send(connect)
check(t.expect(r"Milvus\(by-dev\) > ", 20), "connected")
time.sleep(0.3)
t.send("reset checkpoint --target-wal kafka --run --backup-dir " + bk)
check(t.expect(r"apply these \d+ key changes to by-dev\? \[y/N\] ", 20), "--run on a terminal asks before the first write")
attrs = termios.tcgetattr(t.master)
check(bool(attrs[3] & termios.ECHO) and bool(attrs[3] & termios.ICANON), "the question is asked in line mode, with echo")
t.send("n")
check(t.expect(r"nothing was written", 20), "a no writes nothing")
time.sleep(0.3)
t.send("reset checkpoint --target-wal kafka --run --backup-dir " + bk)
check(t.expect(r"\[y/N\] ", 20), "asked again")
t.write(b"\x03")
check(t.expect(r"nothing was written", 20), "Ctrl-C at the question writes nothing")
check(t.expect(r"Milvus\(by-dev\) > ", 20), "and the REPL goes on")
time.sleep(0.3)
t.send("reset checkpoint --target-wal kafka --run --backup-dir " + bk)
check(t.expect(r"\[y/N\] ", 20), "asked again")
t.send("y")
check(t.expect(r"verify: ok", 20), "a yes writes and verifies")
time.sleep(0.3)
start = t.pos
t.send("reset checkpoint --target-wal pulsar --run --yes --backup-dir " + bk)
check(t.expect(r"verify: ok", 20), "--yes writes without asking")
check(b"[y/N]" not in t.buf[start:t.pos], "--yes asked nothing")
t.send("exit")
t.exited(10)
t.kill()
sys.exit(0 if check.ok else 1)
PY
if PYTHONPATH=$E2E_DIR python3 "$WORK/pty.py" "$HERON" "$(connect_line)" "$WORK/pty" >"$WORK/pty.out" 2>&1; then
	pass "the REPL's question before a write (yes, no, --yes)"
else
	RC=1 OUT=$(cat "$WORK/pty.out") ERR=""
	fail "the REPL's question before a write"
fi
grep '^ok' "$WORK/pty.out" | sed 's/^/  /'

finish
