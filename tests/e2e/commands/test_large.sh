# A segment value of 5 MiB (real binlog entries appended to a seeded
# SegmentInfo) against Debian's etcd: with --max-request-bytes 16777216 the
# run succeeds (the op goes alone in its transaction, through the client's
# send limit) and restore rolls it back byte for byte; with etcd's default
# limit (1.5 MiB) the run stops naming the key and the limit, before the
# consume checkpoints (the last phase), which stay untouched, and the named
# backup rolls back what was written.
. "$(dirname "$0")/../lib.sh"
start_etcd --max-request-bytes 16777216
BK=$WORK/backups
mkdir -p "$BK"
seed --wal pulsar --rootPath by-dev
RC=0 OUT="" ERR=""

BIG=$(dump --prefix by-dev/meta/datacoord-meta/s/ | head -1 | cut -f1)
[ -n "$BIG" ] || { echo "no segment seeded" >&2; exit 1; }
# grow BIG to over 5 MiB through etcd's JSON gateway (etcdctl's client cannot
# send that much); prints the appended bytes' hex to $WORK/tail.hex.
python3 - "$ETCD" "$BIG" "$WORK/tail.hex" <<'PY' || { echo "cannot grow $BIG" >&2; exit 1; }
import base64, json, sys, urllib.request
etcd, key, tail = sys.argv[1:]
def call(path, body):
    req = urllib.request.Request("http://%s/v3/kv/%s" % (etcd, path), data=json.dumps(body).encode(), method="POST")
    return json.load(urllib.request.urlopen(req))
def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)
def field(num, wire, payload):
    tag = varint(num << 3 | wire)
    return tag + (varint(payload) if wire == 0 else varint(len(payload)) + payload)
k64 = base64.b64encode(key.encode()).decode()
value = base64.b64decode(call("range", {"key": k64})["kvs"][0]["value"])
extra = bytearray()
log = 0
while len(value) + len(extra) < 5 * 1024 * 1024 + 4096:
    # SegmentInfo.binlogs (11): FieldBinlog{fieldID 1, binlogs 2: Binlog{entries_num 1, log_path 4, log_size 5, logID 6}}
    # (milvus pkg/v2 proto/data_coord.proto)
    binlogs = b"".join(field(2, 2, field(1, 0, 1000) + field(4, 2, ("files/insert_log/100/101/%d/%d/%d" % (1001, 100 + f, log + f)).encode())
                             + field(5, 0, 4096) + field(6, 0, log + f)) for f in range(40))
    extra += field(11, 2, field(1, 0, 100 + log % 7) + binlogs)
    log += 40
call("put", {"key": k64, "value": base64.b64encode(value + bytes(extra)).decode()})
open(tail, "w").write(bytes(extra[-4096:]).hex())
PY
size=$(dump --prefix "$BIG" | cut -f2 | awk '{print length($0)/2}')
if [ "$size" -gt $((5 * 1024 * 1024)) ]; then pass "$BIG holds $size bytes"; else fail "$BIG holds $size bytes"; fi
dump >"$WORK/original.dump"

# A server that accepts it: the run succeeds.
run_heron "$(connect_line)
reset checkpoint --target-wal kafka --run --backup-dir $BK"
expect_rc 0 "reset of a 5 MiB segment against --max-request-bytes 16777216"
expect_out "verify: ok" "the run verifies"
if dump --prefix "$BIG" | cut -f2 | grep -q "$(cat "$WORK/tail.hex")"; then pass "the binlogs of the big segment survive the rewrite"; else fail "the big segment lost bytes"; fi
backup=$(printf '%s' "$ERR" | sed -n 's/^backup: \(.*\) ([0-9]* keys, synced)$/\1/p' | head -1)
run_heron "$(connect_line)
restore --file $backup --run --backup-dir $BK"
expect_rc 0 "restore of the big run"
dump >"$WORK/restored.dump"
if cmp -s "$WORK/original.dump" "$WORK/restored.dump"; then pass "restore is byte-identical"; else fail "restore differs"; fi

# The same data under etcd's default request limit.
kill "$ETCD_PID"
wait "$ETCD_PID" 2>/dev/null
start_etcd
cps() { dump --prefix by-dev/meta/streamingnode-meta/wal/ | grep /consume-checkpoint; }
cps >"$WORK/cp.before"
[ -s "$WORK/cp.before" ] || { echo "no consume checkpoint seeded" >&2; exit 1; }
rm -rf "$BK" && mkdir -p "$BK"
run_heron "$(connect_line)
reset checkpoint --target-wal kafka --run --backup-dir $BK"
expect_rc 1 "reset of a 5 MiB segment against etcd's default --max-request-bytes"
[ -z "${E2E_VERBOSE:-}" ] || printf "  | %s\n" "$OUT" "$ERR"
expect_err "$BIG" "the error names the key"
expect_err "max-request-bytes" "the error names etcd's limit"
expect_err "too large" "the error says the transaction was too large"
if printf '%s' "$ERR" | grep -q "may or may not"; then fail "the refusal is reported as an unknown outcome"; else pass "the refusal is known not written"; fi
expect_out "wrote [0-9]+ of [0-9]+ keys" "the run says what it wrote"
cps >"$WORK/cp.after"
if cmp -s "$WORK/cp.before" "$WORK/cp.after"; then pass "the consume checkpoints are untouched"; else fail "consume checkpoints changed"; fi
if dump --prefix "$BIG" | cut -f2 | cmp -s - <(grep -F "$BIG	" "$WORK/original.dump" | cut -f2); then pass "the big segment is as it was"; else fail "the big segment changed"; fi
backup=$(printf '%s' "$ERR" | sed -n 's/.*restore --file \([^ ]*\) --run rolls back.*/\1/p' | head -1)
[ -n "$backup" ] || fail "the error names no backup"
run_heron "$(connect_line)
restore --file $backup --run --backup-dir $BK"
expect_rc 0 "restore of the stopped run"
dump >"$WORK/restored2.dump"
if cmp -s "$WORK/original.dump" "$WORK/restored2.dump"; then pass "restore after the stopped run is byte-identical"; else fail "restore after the stopped run differs"; fi
finish
