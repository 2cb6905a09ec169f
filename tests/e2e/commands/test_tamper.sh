# restore of a tampered backup against Debian's etcd: a flipped bit inside a
# base64 value, an injected by-dev/kv/gid/idTimestamp entry (checksum
# recomputed, so the prefix check refuses it), a checksum-less backup of an
# older heron (refused without --no-checksum, restored with it). Every
# refusal is exit 1 with the dump unchanged.
. "$(dirname "$0")/../lib.sh"
seeded_instance
reset_to_kafka

# tamper MODE OUT: writes a changed copy of $backup: flip, a bit of a value
# flipped (the end line kept: its checksum no longer matches); inject, an
# entry added (the end line recomputed, tests/e2e/planfile.py); old, no
# prefixes in the header and no checksum in the end line.
tamper() {
	PYTHONPATH=$E2E_DIR python3 - "$backup" "$1" "$2" <<'PY'
import base64, json, sys
import planfile
src, mode, out = sys.argv[1:]
lines = open(src).read().splitlines()
if mode == "flip":
    l = json.loads(lines[3])
    v = bytearray(base64.b64decode(l["value"]))
    v[len(v) // 2] ^= 0x10
    l["value"] = base64.b64encode(bytes(v)).decode()
    lines[3] = planfile.line(l)
elif mode == "old":
    h = json.loads(lines[0])
    del h["prefixes"]
    lines[0] = planfile.line(h)
    lines[-1] = '{"end":true,"ops":%d}' % (len(lines) - 2)
if mode == "inject":
    gid = base64.b64encode(b"\x08\x01").decode()
    planfile.save(out, lines[0], lines[1:-1] + [planfile.line({"key": "by-dev/kv/gid/idTimestamp", "value": gid, "mod_revision": 3, "op": "put"})])
else:
    open(out, "w").write("".join(l + "\n" for l in lines))
PY
}
refused() { # refused FILE NAME PATTERN [FLAGS]
	run_heron "$(connect_line)
restore --file $1 --run --backup-dir $BK ${4:-}"
	expect_rc 1 "$2: refused"
	expect_err "$3" "$2: the error says what failed"
	dump >"$WORK/now.dump"
	if cmp -s "$WORK/reset.dump" "$WORK/now.dump"; then pass "$2: nothing written"; else fail "$2: etcd changed"; fi
}
tamper flip "$WORK/flipped.jsonl"
refused "$WORK/flipped.jsonl" "flipped bit" "flipped.jsonl: checksum mismatch"
tamper inject "$WORK/injected.jsonl"
refused "$WORK/injected.jsonl" "injected gid key" "line [0-9]+: key by-dev/kv/gid/idTimestamp is outside the prefixes"
tamper old "$WORK/old.jsonl"
refused "$WORK/old.jsonl" "no checksum" "no checksum.*--no-checksum"
run_heron "$(connect_line)
restore --file $WORK/old.jsonl --no-checksum"
expect_rc 0 "no checksum, --no-checksum: plan"
expect_out "warning: the backup has no checksum" "the plan warns it is unchecked"
run_heron "$(connect_line)
restore --file $WORK/old.jsonl --no-checksum --run --backup-dir $BK"
expect_rc 0 "no checksum, --no-checksum: restored"
dump >"$WORK/restored.dump"
if cmp -s "$WORK/original.dump" "$WORK/restored.dump"; then pass "restored byte for byte"; else fail "restore differs"; fi
finish
