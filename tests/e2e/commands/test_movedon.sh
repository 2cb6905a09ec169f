# A restore onto an instance that moved on (issue 17, item 2), against
# Debian's etcd: after reset --run, Milvus runs on the new WAL (done here
# with etcdctl, with valid protobuf bytes): datacoord garbage-collects 10
# segments, creates 5 (the bytes of a segment the reset wrote, under a new
# segment ID) and advances 2 channel checkpoints (a later woodpecker
# position and timestamp). The restore's dry run lists every key changed,
# deleted and created since, --run refuses (exit 3) naming them and writes
# nothing; --force-moved-on --run restores, says what it rolls back and that
# the created segments stay (a split state, exit 1): the result is the
# original instance byte for byte plus the 5 created segments.
. "$(dirname "$0")/../lib.sh"

use_gen
RC=0 OUT="" ERR=""
ROOT=by-dev
S=$ROOT/meta/datacoord-meta/s/
CP=$ROOT/meta/datacoord-meta/channel-cp/
keys() { ctl get --prefix "$1" --keys-only | grep -v '^$'; }

# pbput KEY FROM FIELD=VALUE...: puts at KEY the protobuf value of FROM with
# top-level varint fields set (1=N: a SegmentInfo's ID) or a channel
# checkpoint advanced (2=woodpecker:N: MsgPosition.msgID is woodpecker entry
# N of segment 0; 4=+N: the timestamp N ms later), every other field as is.
pbput() {
	local key=$1 from=$2
	shift 2
	ctl get "$from" -w json | python3 -c '
import base64, json, sys
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
def enc(v):
    o = bytearray()
    while True:
        c, v = v & 0x7f, v >> 7
        if not v: o.append(c); return bytes(o)
        o.append(c | 0x80)
val = base64.b64decode(json.load(sys.stdin)["kvs"][0]["value"])
set_ = dict(a.split("=", 1) for a in sys.argv[1:])
out, i = bytearray(), 0
while i < len(val):
    tag, j = varint(val, i)
    num, wt = tag >> 3, tag & 7
    if wt == 0: v, k = varint(val, j)
    elif wt == 2: n, k = varint(val, j); k += n
    else: sys.exit("wire type %d" % wt)
    a = set_.get(str(num))
    if a is None: out += val[i:k]
    elif a.startswith("woodpecker:"):
        mid = b"\x08\x00\x10" + enc(int(a[11:]))
        out += enc(tag) + enc(len(mid)) + mid
    elif a.startswith("+"): out += enc(tag) + enc(v + (int(a[1:]) << 18))
    else: out += enc(tag) + enc(int(a))
    i = k
sys.stdout.buffer.write(bytes(out))
' "$@" >"$WORK/value" || { echo "pbput: cannot rewrite $from" >&2; exit 1; }
	ctl put "$key" <"$WORK/value" >/dev/null || { echo "pbput: put $key failed" >&2; exit 1; }
}

start_etcd
"$GEN" seed --etcd "$ETCD" --rootPath "$ROOT" --wal pulsar --segments 300 --collections 10 --shards 2 --pchannels 4 --writers 2 >/dev/null ||
	{ echo "seeding failed" >&2; exit 1; }
dump_to "$WORK/original.dump"
mkdir -p "$WORK/bk"
run_heron "$(connect_line "$ROOT")
reset checkpoint --target-wal woodpecker --run --backup-dir $WORK/bk"
expect_rc 0 "reset --run"
B=$(backup_in_err)
[ -f "$B" ] || { echo "no backup named: $ERR" >&2; exit 1; }
dump_to "$WORK/reset.dump"

# Right after the reset the restore's gate passes.
run_heron "$(connect_line "$ROOT")
restore --file $B"
expect_rc 0 "restore dry run right after the reset"
expect_out "ok +instance did not move on" "nothing moved on yet"

# --- Milvus on the new WAL ---------------------------------------------------
mapfile -t segs < <(keys "$S")
mapfile -t cps < <(keys "$CP")
gone=("${segs[@]:0:10}")
for k in "${gone[@]}"; do ctl del "$k" >/dev/null || exit 1; done
keep=${segs[-1]}
created=()
for n in 1 2 3 4 5; do
	id=$((${keep##*/} + 1000 + n))
	created+=("${keep%/*}/$id")
	pbput "${keep%/*}/$id" "$keep" "1=$id"
done
advanced=("${cps[0]}" "${cps[1]}")
for k in "${advanced[@]}"; do pbput "$k" "$k" 2=woodpecker:42 4=+60000; done
dump_to "$WORK/moved.dump"
if [ "$(grep -c . "$WORK/moved.dump")" = "$(($(grep -c . "$WORK/reset.dump") - 10 + 5))" ]; then
	pass "Milvus moved on: 10 segments deleted, 5 created"
else fail "Milvus moved on: the key count"; fi

lists_every_key() { # lists_every_key NAME: stdout or stderr names each key with what happened (the gate's lines unwrapped)
	local k missing="" both
	both=$(printf '%s\n%s' "$OUT" "$ERR" | unwrap)
	for k in "${gone[@]}"; do printf '%s' "$both" | grep -qF "deleted since: $k" || missing="$missing deleted:$k"; done
	for k in "${created[@]}"; do printf '%s' "$both" | grep -qF "created since: $k" || missing="$missing created:$k"; done
	for k in "${advanced[@]}"; do printf '%s' "$both" | grep -qF "changed since: $k" || missing="$missing changed:$k"; done
	if [ -z "$missing" ]; then pass "$1: names the 10 deleted, 5 created and 2 changed keys"; else fail "$1: does not name$missing"; fi
}

# --- the dry run and --run refuse ------------------------------------------
before=$(rev)
run_heron "$(connect_line "$ROOT")
restore --file $B"
expect_rc 3 "restore dry run: refused"
expect_out "REFUSED +instance did not move on" "the moved-on gate refuses"
expect_out "REFUSED +instance did not move on +restoring leaves a split state: the 5 keys created since stay" "the refusal says the split state first"
expect_out "17 keys moved on since \"reset checkpoint[^\"]*\" wrote them \(2 changed, 10 deleted, 5 created\)" "the gate counts what moved on"
lists_every_key "dry run"
run_heron "$(connect_line "$ROOT")
restore --file $B --run --backup-dir $WORK/bk"
expect_rc 3 "restore --run: refused"
lists_every_key "--run"
expect_out "garbage-collected" "the refusal says deleted segments were garbage-collected"
expect_out "--force-moved-on" "the refusal names --force-moved-on"
if [ "$(rev)" = "$before" ]; then pass "refused: etcd revision unchanged"; else fail "refused: etcd revision moved"; fi
dump_to "$WORK/after-refusal.dump"
if cmp -s "$WORK/moved.dump" "$WORK/after-refusal.dump"; then pass "refused: the instance byte for byte as Milvus left it"; else fail "a refused restore changed keys"; fi

# --- --force-moved-on ----------------------------------------------------------
run_heron "$(connect_line "$ROOT")
restore --file $B --force-moved-on --run --backup-dir $WORK/bk"
expect_rc 1 "--force-moved-on --run: restores, then finds the split state the gate warned of"
expect_out "overridden +instance did not move on" "the gate is shown overridden"
expect_out "--force-moved-on: the restore rolls back what Milvus did since \"reset checkpoint[^\"]*\" on 17 keys: keys deleted since are created again, changed ones go back, created ones stay" "it says what is lost"
expect_err "split state" "it says the created segments leave a split state"
if printf '%s' "$OUT" | grep -q "verify: ok"; then fail "verify: ok over a split state"; else pass "no verify: ok"; fi
# Issue 27 item 4: the verify failure names the keys created since, the WAL
# they name, and the ways out; the refusal put the split state first.
for k in "${created[@]}"; do
	printf '%s' "$ERR" | grep -qF "$k" || { RC=1; fail "the split state after the restore does not name $k"; }
done
expect_err "keys created since the backup still name woodpecker" "it says which WAL the created keys name"
expect_err "\(2\) delete the 5 keys created since .*the rows of those segments are lost" "it gives deleting them with its cost"
dump_to "$WORK/forced.dump"
{
	cat "$WORK/original.dump"
	for k in "${created[@]}"; do grep -F "$k	" "$WORK/moved.dump"; done
} | LC_ALL=C sort >"$WORK/want.dump"
if LC_ALL=C sort "$WORK/forced.dump" | cmp -s - "$WORK/want.dump"; then
	pass "forced: the original instance byte for byte, plus the 5 segments created since"
else
	RC=1 ERR=$(LC_ALL=C sort "$WORK/forced.dump" | diff "$WORK/want.dump" - | head -4 | cut -c1-200)
	fail "forced: the restored instance differs"
fi

# The scoped reset the failure gives, copied as printed, ends the split state.
FORCED_ERR=$ERR
RESET=$(printf '%s' "$FORCED_ERR" | sed -n 's/.*(1) [^`]*`\(reset checkpoint [^`]*\)`.*/\1/p' | head -1)
case "$RESET" in "reset checkpoint --target-wal pulsar --pchannel "*" --run") pass "the way out is a scoped reset to pulsar: $RESET" ;; *) fail "no scoped reset in: $(printf '%s' "$FORCED_ERR" | tail -1 | cut -c1-300)" ;; esac
run_heron "$(connect_line "$ROOT")
$RESET --yes --backup-dir $WORK/bk"
expect_rc 0 "the copied scoped reset runs"
run_heron "$(connect_line "$ROOT")
show checkpoint --pchannels"
expect_out "none split" "after it no pchannel is split"
finish
