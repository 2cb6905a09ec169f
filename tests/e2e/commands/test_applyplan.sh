# apply --file against Debian's etcd: a saved plan is a claim that heron
# proves again. Each case plans with --plan-out, changes the instance or the
# file, and applies with --run --yes: refused (exit 3) with etcd unchanged
# byte for byte, or written exactly as a fresh reset checkpoint --run
# writes. 1: a Growing segment put after the plan; woodpecker logs written
# after a --target-wal woodpecker plan; a log written after a reset wal
# plan. 2: an edited old value with the SHA-256 recomputed. 3: a header
# stripped of rule, rule_params, prefixes and restore_order with lines
# writing garbage, a schema-key delete, a key outside the root path and a
# fake session key; an unknown planner; edited recorded flags. 4: a plan
# of another heron version (applied, said, equal to a fresh run; its backup
# restores the original). An untampered plan applies.
. "$(dirname "$0")/../lib.sh"
seeded_instance
FIX=$REPO/states/resetwal/testdata

# edit MODE IN OUT: a changed copy of the plan IN, its end line (count and
# SHA-256) recomputed, as anyone can (tests/e2e/planfile.py).
edit() {
	PYTHONPATH=$E2E_DIR python3 - "$1" "$2" "$3" <<'PY'
import base64, json, sys
import planfile
mode, src, out = sys.argv[1:]
h, body = planfile.load(src)
b64 = lambda b: base64.b64encode(b).decode()
if mode == "oldvalue":
    planfile.flip_value(body, "/datacoord-meta/s/")
elif mode == "strip":
    for k in ("rule", "rule_params", "prefixes", "restore_order"):
        h.pop(k, None)
    for i, l in enumerate(body):
        e = json.loads(l)
        if e["op"] == "put":
            e["new"] = b64(b"garbage")
        body[i] = planfile.line(e)
    body.append('{"key":"by-dev/meta/streamingnode-meta/wal/by-dev-rootcoord-dml_0/vchannel/by-dev-rootcoord-dml_0_100v0","value":"","mod_revision":2,"op":"delete"}')
    body.append('{"key":"other-instance/meta/x","value":"","mod_revision":0,"absent":true,"new":"%s","op":"put"}' % b64(b"x"))
    body.append('{"key":"by-dev/meta/session/fake","value":"","mod_revision":0,"absent":true,"new":"%s","op":"put"}' % b64(b'{"ServerID":9}'))
elif mode == "inject":
    body.insert(1, '{"key":"by-dev/meta/streamingnode-meta/wal/by-dev-rootcoord-dml_0/vchannel/by-dev-rootcoord-dml_0_100v0","value":"","mod_revision":2,"op":"delete"}')
    body.append('{"key":"by-dev/meta/session/fake","value":"","mod_revision":0,"absent":true,"new":"%s","op":"put"}' % b64(b'{"ServerID":9}'))
elif mode == "version":
    h["heron"] = "v0.0.1 (vcs 0000000, go1.20)"
elif mode == "planner":
    h["planner"] = "reset everything"
elif mode == "params":
    h["params"] = ["--target-wal=kafka", "--backup-dir=/"]
planfile.save(out, h, body)
PY
}
plan_out() { # plan_out FILE COMMAND...
	rm -f "$1"
	run_heron "$(connect_line)
$2 --plan-out $1"
	expect_rc 0 "plan saved: $2"
}
apply_refused() { # apply_refused FILE NAME PATTERN
	dump >"$WORK/before.dump"
	run_heron "$(connect_line)
apply --file $1 --run --yes --backup-dir $BK"
	expect_rc 3 "$2: refused"
	expect_out "$3" "$2: the plan says why"
	dump >"$WORK/now.dump"
	if cmp -s "$WORK/before.dump" "$WORK/now.dump"; then pass "$2: nothing written"; else fail "$2: etcd changed"; fi
}
reset_to() { "$ETCDTOOL" load --etcd "$ETCD" --file "$1"; } # etcd holds exactly the dump again

# 1. A Growing segment put after the plan: the re-plan's gate refuses, and
# the segment is a key the file does not hold.
P=$WORK/plan.jsonl
plan_out "$P" "reset checkpoint --target-wal kafka"
seed --wal pulsar --rootPath by-dev --gate growing
apply_refused "$P" "growing segment put after the plan" "REFUSED  reset checkpoint: no unflushed segment in scope"
expect_out "datacoord-meta/s/100/101/1009: new key" "the new segment is listed as a new key"
expect_out "REFUSED  the plan is what heron plans now" "the comparison refuses"
expect_err "apply refused" "stderr says refused"
reset_to "$WORK/original.dump"

# 1'. Woodpecker logs written after a --target-wal woodpecker plan.
plan_out "$P" "reset checkpoint --target-wal woodpecker"
"$ETCDTOOL" wpseed --etcd "$ETCD" --file "$FIX/wp_milvus30.json"
apply_refused "$P" "woodpecker logs written after the plan" "REFUSED  reset checkpoint: woodpecker target is empty"
reset_to "$WORK/original.dump"

# 1''. reset wal: a log written after the plan is a key the file does not hold.
"$ETCDTOOL" wpseed --etcd "$ETCD" --file "$FIX/wp_milvus30.json"
dump >"$WORK/wp.dump"
W=$WORK/wal.jsonl
plan_out "$W" "reset wal --target woodpecker --pchannel by-dev-rootcoord-dml_0"
ETCDCTL_API=3 etcdctl --endpoints "$ETCD" put by-dev/woodpecker/logs/by-dev-rootcoord-dml_0/segments/99 x >/dev/null
apply_refused "$W" "reset wal: a segment written after the plan" "by-dev/woodpecker/logs/by-dev-rootcoord-dml_0/segments/99: new key"
reset_to "$WORK/wp.dump"
edit strip "$W" "$WORK/wal-strip.jsonl"
apply_refused "$WORK/wal-strip.jsonl" "reset wal: stripped header, injected keys" "other-instance/meta/x: outside what reset wal writes"
expect_out "by-dev/meta/session/fake: key gone" "the fake session key is refused"
run_heron "$(connect_line)
apply --file $W --run --yes --backup-dir $BK"
expect_rc 0 "reset wal: the untampered plan applies"
dump >"$WORK/wal-applied.dump"
reset_to "$WORK/wp.dump"
run_heron "$(connect_line)
reset wal --target woodpecker --pchannel by-dev-rootcoord-dml_0 --run --backup-dir $BK"
expect_rc 0 "reset wal --run"
dump >"$WORK/wal-run.dump"
if cmp -s "$WORK/wal-applied.dump" "$WORK/wal-run.dump"; then pass "reset wal: apply wrote what reset wal --run writes"; else fail "reset wal: apply and --run differ"; fi
reset_to "$WORK/original.dump"

# 2. An edited old value, checksum recomputed: etcd holds other bytes.
plan_out "$P" "reset checkpoint --target-wal kafka"
edit oldvalue "$P" "$WORK/oldvalue.jsonl"
apply_refused "$WORK/oldvalue.jsonl" "edited old value" "datacoord-meta/s/[0-9/]+: old value changed"

# 3. A stripped header with garbage, a schema delete, a key outside the
# root, a fake session key (and the delete and session key alone, in
# an otherwise untouched plan); an unknown planner; edited recorded flags.
edit strip "$P" "$WORK/strip.jsonl"
apply_refused "$WORK/strip.jsonl" "stripped header" '\(header\) rule: the file says "", heron plans "reset-checkpoint"'
expect_out "differences" "the differences are counted"
expect_out "new value differs" "the garbage new values differ"
expect_out "other-instance/meta/x: outside what reset checkpoint writes" "the key outside the root path is refused"
edit inject "$P" "$WORK/inject.jsonl"
apply_refused "$WORK/inject.jsonl" "a schema-key delete and a fake session key" "vchannel/by-dev-rootcoord-dml_0_100v0: key gone"
expect_out "by-dev/meta/session/fake: key gone" "the fake session key is refused"
expect_out "2 differences between the file" "nothing else differs"
edit planner "$P" "$WORK/planner.jsonl"
apply_refused "$WORK/planner.jsonl" "unknown planner" 'REFUSED  a command heron plans again +the plan.s header names planner "reset everything"'
edit params "$P" "$WORK/params.jsonl"
apply_refused "$WORK/params.jsonl" "a write flag in the recorded flags" 'REFUSED  a command heron plans again .*--backup-dir=/'

# 4. Another heron's plan: applied because heron plans the same ops now;
# the output says so; the bytes are a fresh run's; its backup restores.
edit version "$P" "$WORK/version.jsonl"
run_heron "$(connect_line)
apply --file $WORK/version.jsonl --run --yes --backup-dir $BK"
expect_rc 0 "another heron's plan, equal when planned again: applied"
expect_out "planned by heron v0.0.1 \(vcs 0000000, go1.20\), applied by heron" "the plan names both herons"
expect_out "verify: ok" "verify ok"
applied=$(backup_in_err)
dump >"$WORK/applied.dump"
run_heron "$(connect_line)
restore --file $applied --run --yes --backup-dir $BK"
expect_rc 0 "the apply's backup restores"
dump >"$WORK/now.dump"
if cmp -s "$WORK/original.dump" "$WORK/now.dump"; then pass "restored byte for byte"; else fail "restore differs"; fi
run_heron "$(connect_line)
reset checkpoint --target-wal kafka --run --yes --backup-dir $BK"
expect_rc 0 "reset --run"
dump >"$WORK/now.dump"
if cmp -s "$WORK/applied.dump" "$WORK/now.dump"; then pass "apply wrote exactly what reset --run writes"; else fail "apply and reset --run differ"; fi
reset_to "$WORK/original.dump"

# --plan-out on another filesystem (/dev/shm) than the working folder: the
# plan is staged beside its target, nothing is left in the working folder.
SHM=/dev/shm/heron-e2e-plan-$$.jsonl
mkdir -p "$WORK/cwd"
(cd "$WORK/cwd" && run_heron "$(connect_line)
reset checkpoint --target-wal kafka --plan-out $SHM" && echo "$RC" >"$WORK/rc")
RC=$(cat "$WORK/rc") OUT=$(cat "$WORK/out") ERR=$(cat "$WORK/err")
expect_rc 0 "--plan-out on another filesystem"
if [ -s "$SHM" ] && [ -z "$(ls -A "$WORK/cwd")" ] && [ -z "$(ls -A /dev/shm | grep "heron-e2e-plan-$$.jsonl.tmp")" ]; then pass "the plan is there, no temporary file left"; else fail "--plan-out across filesystems"; fi
rm -f "$SHM"

# An untampered plan, nothing changed: applies, pinned to the digest
# --plan-out printed; another digest is refused.
plan_out "$P" "reset checkpoint --target-wal kafka"
digest=$(printf '%s' "$ERR" | sed -n 's/^plan saved: .* keys, sha256 \([0-9a-f]*\)).*/\1/p')
if [ ${#digest} -eq 64 ]; then pass "--plan-out prints the plan's digest"; else fail "no digest in: $ERR"; fi
apply_refused "$P --expect-digest 0000$digest" "another digest" "REFUSED  the plan reviewed +the plan's digest is sha256 $digest, not 0000$digest"
run_heron "$(connect_line)
apply --file $P --expect-digest $digest --run --yes --backup-dir $BK"
expect_rc 0 "the untampered plan applies"
expect_out "ok +the plan is what heron plans now" "the comparison passes"
expect_out "verify: ok" "verify ok"
dump >"$WORK/now.dump"
if cmp -s "$WORK/applied.dump" "$WORK/now.dump"; then pass "the untampered plan wrote what reset --run writes"; else fail "untampered apply differs"; fi
finish
