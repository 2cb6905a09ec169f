# restore checks its input against what heron knows, against Debian's etcd:
# a reset checkpoint backup whose header lost its rule, one whose command
# is unknown, one whose prefixes reach outside what the command writes
# (checksums recomputed, as anyone can) are refused with nothing written
# (exit 1); an edited original value is caught by the moved-on gate (exit
# 3) because the rule says what the command wrote; the untouched backup
# restores byte for byte; a plan or backup that is not a regular file or
# has no newline is refused; a reset wal backup whose prefixes reach
# another root is refused, the untouched one restores.
. "$(dirname "$0")/../lib.sh"
seeded_instance
reset_to_kafka

# edit MODE SRC OUT [PREFIX KEY]: a changed copy of the backup SRC, its end
# line recomputed (tests/e2e/planfile.py). prefix: PREFIX added to the
# header's prefixes, and an entry putting KEY.
edit() {
	PYTHONPATH=$E2E_DIR python3 - "$@" <<'PY'
import base64, sys
import planfile
mode, src, out = sys.argv[1:4]
h, body = planfile.load(src)
if mode == "norule":
    for k in ("rule", "rule_params"):
        h.pop(k, None)
elif mode == "command":
    h["planner"] = "reset everything"
    h["command"] = "reset everything --run"
elif mode == "prefix":
    prefix, key = sys.argv[4:6]
    h["prefixes"] = h["prefixes"] + [prefix]
    body.append(planfile.line({"key": key, "value": base64.b64encode(b"x").decode(), "mod_revision": 3, "op": "put"}))
elif mode == "original":
    planfile.flip_value(body, "/datacoord-meta/s/")
planfile.save(out, h, body)
PY
}
refused() { # refused FILE RC NAME PATTERN: stdout and stderr together
	run_heron "$(connect_line)
restore --file $1 --run --yes --backup-dir $BK"
	expect_rc "$2" "$3: refused"
	if printf '%s\n%s' "$OUT" "$ERR" | grep -qE -- "$4"; then pass "$3: says why"; else fail "$3: lacks /$4/"; fi
	dump >"$WORK/now.dump"
	if cmp -s "$WORK/reset.dump" "$WORK/now.dump"; then pass "$3: nothing written"; else fail "$3: etcd changed"; fi
}
edit norule "$backup" "$WORK/norule.jsonl"
refused "$WORK/norule.jsonl" 1 "rule removed" 'names rule "", but reset checkpoint backups name "reset-checkpoint": the header was changed'
edit command "$backup" "$WORK/command.jsonl"
refused "$WORK/command.jsonl" 1 "unknown command" 'names command "reset everything --run", which is not a write command this heron knows'
edit prefix "$backup" "$WORK/prefix.jsonl" other/ other/k
refused "$WORK/prefix.jsonl" 1 "prefix outside the command's reach" 'prefix "other/" of its header is outside what reset checkpoint writes on this instance'
edit original "$backup" "$WORK/original.jsonl"
refused "$WORK/original.jsonl" 3 "edited original value" 'REFUSED  instance did not move on.*1 keys moved on'
# Bounded readers: a FIFO, /dev/zero and a file without a newline are
# refused with a message by restore, apply and load-backup (no hang, no
# "fatal error: out of memory").
mkfifo "$WORK/fifo"
head -c $((40 << 20)) /dev/zero | tr '\0' 'x' >"$WORK/nonewline.jsonl"
for f in "$WORK/fifo:a FIFO" "/dev/zero:a device" "$WORK/nonewline.jsonl:longer than 32 MiB"; do
	file=${f%%:*}
	why=${f#*:}
	for cmd in restore apply; do
		printf '%s\n' "$(connect_line)" "$cmd --file $file --run --yes --backup-dir $BK" | timeout 60 "$HERON" >"$WORK/out" 2>"$WORK/err"
		RC=$? OUT=$(cat "$WORK/out") ERR=$(cat "$WORK/err")
		expect_rc 1 "$cmd --file $(basename "$file"): refused"
		expect_err "$why" "$cmd --file $(basename "$file"): says why"
	done
	timeout 60 "$HERON" load-backup "$file" </dev/null >"$WORK/out" 2>"$WORK/err"
	RC=$? OUT=$(cat "$WORK/out") ERR=$(cat "$WORK/err")
	if [ "$RC" -ne 0 ] && [ "$RC" -ne 124 ] && grep -q "$why" "$WORK/err" && ! grep -q "out of memory" "$WORK/err"; then pass "load-backup $(basename "$file"): refused, says why"; else fail "load-backup $(basename "$file")"; fi
done
dump >"$WORK/now.dump"
if cmp -s "$WORK/reset.dump" "$WORK/now.dump"; then pass "bounded readers: nothing written"; else fail "bounded readers: etcd changed"; fi

run_heron "$(connect_line)
restore --file $backup --run --yes --backup-dir $BK"
expect_rc 0 "the untouched backup restores"
dump >"$WORK/now.dump"
if cmp -s "$WORK/original.dump" "$WORK/now.dump"; then pass "restored byte for byte"; else fail "restore differs"; fi

# reset wal's backups: a key outside what reset wal writes (another
# instance's root, named in an edited prefix) is refused; the untouched
# backup restores.
"$ETCDTOOL" wpseed --etcd "$ETCD" --file "$REPO/states/resetwal/testdata/wp_milvus30.json"
dump >"$WORK/wp.dump"
run_heron "$(connect_line)
reset wal --target woodpecker --run --yes --backup-dir $BK"
expect_rc 0 "reset wal"
wal=$(backup_in_err)
dump >"$WORK/reset.dump"
edit prefix "$wal" "$WORK/wal-prefix.jsonl" other-root/woodpecker/ other-root/woodpecker/logs/x
refused "$WORK/wal-prefix.jsonl" 1 "reset wal: prefix outside what it writes" 'prefix "other-root/woodpecker/" of its header is outside what reset wal writes on this instance'
run_heron "$(connect_line)
restore --file $wal --run --yes --backup-dir $BK"
expect_rc 0 "reset wal's backup restores"
dump >"$WORK/now.dump"
if cmp -s "$WORK/wp.dump" "$WORK/now.dump"; then pass "reset wal restored byte for byte"; else fail "reset wal restore differs"; fi

finish
