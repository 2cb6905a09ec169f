# Issue 24, case 6, against an etcd started with a small request limit
# (--max-request-bytes 2 MiB, above etcd's default 1.5 MiB that heron
# assumes): (a) two segment values of 1.7 MiB refuse the plan (exit 3,
# nothing written, no backup) until --max-request-bytes names a limit; an
# operator who names more than the server allows (4 MiB: heron then packs
# both values in one transaction) gets etcd's own refusal, exit 1, named,
# known not written; the server's true limit runs, verifies, and keeps the
# big values' bytes. (b) keys holding a newline and a control character
# (BEL), seeded where heron reports them (an unknown key under a pchannel's
# WAL prefix: the plan's warning; a channel checkpoint that does not
# decode: the error), are shown escaped in the table, line and JSON plans,
# the run and the error: no output line is forged, JSON stays valid.
. "$(dirname "$0")/../lib.sh"
start_etcd --max-request-bytes 2097152
BK=$WORK/backups
mkdir -p "$BK"
RC=0 OUT="" ERR=""
rev() { ETCDCTL_API=3 etcdctl --endpoints "$ETCD" get x -w json | python3 -c 'import json,sys; print(json.load(sys.stdin)["header"]["revision"])'; }

# (a) etcd's request limit.
seed --wal pulsar --rootPath by-dev
segs=$(dump --prefix by-dev/meta/datacoord-meta/s/100/ | head -2 | cut -f1)
[ "$(echo "$segs" | wc -l)" = 2 ] || { echo "two segments of collection 100 not seeded" >&2; exit 1; }
i=0
for s in $segs; do
	i=$((i + 1))
	python3 "$E2E_DIR/growsegment.py" "$ETCD" "$s" $((1700 * 1024)) "$WORK/tail$i.hex" || { echo "cannot grow $s" >&2; exit 1; }
done
before=$(rev)
run_heron "$(connect_line)
reset checkpoint --target-wal kafka --run --yes --backup-dir $BK"
expect_rc 3 "values over etcd's default request limit refuse the plan"
expect_out "REFUSED +values within etcd's request limit" "the request-limit gate refuses"
for s in $segs; do expect_out "$s \([0-9]+ bytes\)" "the gate names $s"; done
if [ "$(rev)" = "$before" ] && [ -z "$(ls -A "$BK")" ]; then pass "refused: nothing written, no backup"; else fail "the refused plan wrote or left a backup"; fi

# More than the server allows: etcd refuses the transaction that holds both.
run_heron "$(connect_line)
reset checkpoint --target-wal kafka --run --yes --max-request-bytes 4194304 --backup-dir $BK"
expect_rc 1 "--max-request-bytes above the server's: etcd refuses"
expect_err "too large" "the error says etcd refused a transaction as too large"
expect_err "max-request-bytes" "the error names etcd's limit"
if printf '%s' "$ERR" | grep -q "may or may not"; then fail "the refusal is reported as an unknown outcome"; else pass "the refusal is known not written"; fi
# The refused transaction holds both values: the first, so nothing at all.
expect_err "nothing was written: etcd refused transaction 1 as too large" "the run says it wrote nothing"
if [ "$(rev)" = "$before" ] && [ -z "$(ls -A "$BK")" ]; then pass "nothing was written, no backup left"; else fail "the revision moved or a backup was left"; fi

# The server's own limit: each big value goes alone, as etcd allows.
run_heron "$(connect_line)
reset checkpoint --target-wal kafka --run --yes --max-request-bytes 2097152 --backup-dir $BK"
expect_rc 0 "--max-request-bytes 2097152, the server's: the run completes"
expect_out "verify: ok" "the run verifies"
i=0
for s in $segs; do
	i=$((i + 1))
	if dump --prefix "$s" | cut -f2 | grep -q "$(cat "$WORK/tail$i.hex")"; then pass "$s keeps its binlogs"; else fail "$s lost bytes"; fi
done
run_heron "$(connect_line)
reset checkpoint --target-wal kafka"
expect_rc 0 "planning again"
expect_out "keys to write or delete: 0|nothing to write" "planning again finds nothing to write"

# (b) keys with a newline and a control character.
seed --wal pulsar --rootPath esc
wal=$(dump --prefix esc/meta/streamingnode-meta/wal/ | cut -f1 | grep /consume-checkpoint | head -1)
wal=${wal%/consume-checkpoint}
cp=$(dump --prefix esc/meta/datacoord-meta/channel-cp/ | head -1 | cut -f1)
[ -n "$wal" ] && [ -n "$cp" ] || { echo "esc not seeded" >&2; exit 1; }
odd="$wal/x
ok   - forged"$'\a'
ETCDCTL_API=3 etcdctl --endpoints "$ETCD" put -- "$odd" junk >/dev/null || { echo "cannot put the odd key" >&2; exit 1; }
# forged OUTPUT NAME: no line of OUTPUT is the key's forged line, none holds
# a raw BEL or ESC, and the key's escaped form is there (WANT, a fixed string).
forged() {
	if printf '%s\n' "$1" | grep -qE '^(ok   - forged|ok   - cp)'; then fail "$2: an output line is forged"; else pass "$2: no forged line"; fi
	if printf '%s' "$1" | grep -q $'[\a\033]'; then fail "$2: a raw control character"; else pass "$2: no raw control character"; fi
	if printf '%s' "$1" | grep -qF -- "$3"; then pass "$2: the key is shown escaped"; else fail "$2: lacks $3"; fi
}
for f in table line; do
	run_heron "$(connect_line esc)
reset checkpoint --target-wal kafka --format $f"
	expect_rc 0 "plan ($f) with the odd key"
	forged "$OUT
$ERR" "plan ($f)" 'x\nok   - forged\a'
done
run_heron "$(connect_line esc)
reset checkpoint --target-wal kafka --format json"
expect_rc 0 "plan (json) with the odd key"
# JSON holds the key itself, as JSON escapes it: a document that decodes to it.
if printf '%s' "$OUT" | python3 -c '
import json, sys
def strings(v):
    if isinstance(v, dict): v = list(v.values())
    if isinstance(v, list): return [s for x in v for s in strings(x)]
    return [v] if isinstance(v, str) else []
assert any("/x\nok   - forged\a" in s for s in strings(json.load(sys.stdin)))' 2>/dev/null; then
	pass "plan (json): one valid document holding the key"
else
	fail "plan (json): not valid JSON, or the key is missing"
fi
forged "$OUT
$ERR" "plan (json)" 'x\nok   - forged\u0007'
run_heron "$(connect_line esc)
reset checkpoint --target-wal kafka --run --yes --backup-dir $BK"
expect_rc 0 "the run with the odd key"
forged "$OUT
$ERR" "run" 'x\nok   - forged\a'
if ETCDCTL_API=3 etcdctl --endpoints "$ETCD" get --print-value-only -- "$odd" | grep -qx junk; then pass "the odd key is kept"; else fail "the odd key changed"; fi

bad="$cp
ok   - cp"$'\a'
ETCDCTL_API=3 etcdctl --endpoints "$ETCD" put -- "$bad" $'\xff\xff not a position' >/dev/null || { echo "cannot put the bad key" >&2; exit 1; }
before=$(rev)
run_heron "$(connect_line esc)
reset checkpoint --target-wal pulsar --run --yes --backup-dir $BK"
expect_rc 1 "a channel checkpoint that does not decode stops the plan"
expect_err "does not decode" "the error says why"
forged "$OUT
$ERR" "error" '\nok   - cp\a does not decode'
if [ "$(rev)" = "$before" ]; then pass "the error: nothing written"; else fail "the error wrote"; fi
finish
