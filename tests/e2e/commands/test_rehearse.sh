# backup and load-backup against Debian's etcd: a full backup of the sample,
# a copy loaded from it that plans the same reset as the original, a whole
# rehearsal (reset --run, restore --run) on the copy, refusals of broken
# files, and the copy's folder removed on exit and on SIGTERM.
. "$(dirname "$0")/../lib.sh"
[ -x "$ETCDTOOL" ] || (cd "$REPO" && CGO_ENABLED=0 go build -o "$ETCDTOOL" ./tests/e2e/etcdtool) || exit 1
start_etcd
# load-backup's folders go here, so that every one left behind is seen.
export TMPDIR=$WORK/tmp
mkdir -p "$TMPDIR"
no_folder_left() { # no_folder_left NAME
	if [ -z "$(ls -A "$TMPDIR")" ]; then pass "$1: no load-backup folder left"; else fail "$1: left $(ls "$TMPDIR")"; fi
}
folder_of() { sed -n 's/.*(folder \([^,]*\), removed on exit).*/\1/p' "$1" | head -1; }
# entries FILE: the keys and values of a backup file, one "key value" a line.
entries() {
	python3 - "$1" <<'PY'
import json, sys
for line in list(open(sys.argv[1]))[1:-1]:
    e = json.loads(line)
    print(e.get("key") or "b64:" + e["key_base64"], e["value"])
PY
}

seed --wal pulsar --rootPath by-dev --mqtype
seed --wal kafka --rootPath other
F=$WORK/full.jsonl

run_heron "$(connect_line)
backup --file $F --format json"
expect_rc 0 "backup"
expect_err "backup: [0-9]+/[0-9]+ keys" "progress on stderr"
want=$(dump --prefix by-dev/ | wc -l)
if printf '%s' "$OUT" | python3 -c "import json,sys; d=json.load(sys.stdin); assert d['keys']==$want and d['file']=='$F' and d['bytes']>0 and d['revision']>0, d"; then
	pass "the result names the file, $want keys, bytes, revision"
else fail "backup result"; fi
if [ "$(entries "$F" | wc -l)" -eq "$want" ] && ! grep -q '"key":"other/' "$F"; then pass "the file holds the keys under by-dev/ only"; else fail "backup content"; fi
run_heron "$(connect_line)
backup --file $F"
expect_rc 1 "a second backup to the same file"
expect_err "already exists" "backup never overwrites"

# The original's plan, then the copy's: equal but for the revision.
run_heron "$(connect_line)
reset checkpoint --target-wal kafka --format json"
expect_rc 0 "plan on the original"
printf '%s' "$OUT" >"$WORK/plan-original.json"
printf 'reset checkpoint --target-wal kafka --format json\nbackup --file %s\n' "$WORK/copy.jsonl" |
	"$HERON" load-backup "$F" >"$WORK/plan-copy.out" 2>"$WORK/copy.err"
RC=$? OUT=$(cat "$WORK/plan-copy.out") ERR=$(cat "$WORK/copy.err")
expect_rc 0 "load-backup piped a reset plan and a backup"
expect_err "loaded $want keys of $F" "load-backup says what it loaded"
sed -n '/^{/,/^}/p' "$WORK/plan-copy.out" >"$WORK/plan-copy.json"
if python3 - "$WORK/plan-original.json" "$WORK/plan-copy.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
# The revision and the database size are the etcd's own: the copy's count
# from its load, and the copy is an embedded etcd with its own quota.
for d in (a, b):
    d.pop("revision")
    d.pop("etcd_space", None)
assert a == b, (a, b)
assert a["total_keys"] > 0 and not a["refused"], a
PY
then pass "the copy plans exactly what the original plans"; else fail "plans differ"; fi
if diff <(entries "$F") <(entries "$WORK/copy.jsonl") >/dev/null; then pass "a backup of the copy holds the same keys and values (byte-identical)"; else fail "the copy's dump differs"; fi
dir=$(folder_of "$WORK/copy.err")
if [ -n "$dir" ] && [ ! -e "$dir" ]; then pass "the folder $dir is removed on exit"; else fail "folder '$dir' after exit"; fi
no_folder_left "exit"

# A whole rehearsal on the copy: reset --run, then restore --run its backup
# brings the copy back to the original.
BK=$WORK/rehearsal-backups
mkdir -p "$BK/restore"
mkfifo "$WORK/rehearse.in"
"$HERON" load-backup "$F" <"$WORK/rehearse.in" >"$WORK/run.out" 2>"$WORK/run.err" &
pid=$!
exec 4>"$WORK/rehearse.in"
echo "reset checkpoint --target-wal kafka --run --backup-dir $BK" >&4
RB=""
# load-backup starts an embedded etcd and loads the copy first: a loaded
# machine may take a while (the loop ends as soon as the reset verified).
for _ in $(seq 1 600); do
	RB=$(ls "$BK"/heron-backup-by-dev-*.jsonl 2>/dev/null | head -1)
	[ -n "$RB" ] && grep -q "verify: ok" "$WORK/run.out" && break
	sleep 0.1
done
if [ -n "$RB" ]; then pass "the rehearsed reset wrote its backup"; else fail "no rehearsal backup"; fi
printf 'restore --file %s --run --backup-dir %s/restore\nbackup --file %s\n' "$RB" "$BK" "$WORK/restored.jsonl" >&4
exec 4>&-
wait "$pid"
RC=$? OUT=$(cat "$WORK/run.out") ERR=$(cat "$WORK/run.err")
expect_rc 0 "reset --run, restore --run, backup on the copy"
expect_out "verify: ok" "the rehearsed reset is verified"
if [ "$(grep -c "verify: ok" "$WORK/run.out")" -ge 2 ]; then pass "the rehearsed restore is verified"; else fail "restore not verified"; fi
if diff <(entries "$F") <(entries "$WORK/restored.jsonl") >/dev/null; then pass "restore brings the copy back to the backup, byte for byte"; else fail "the restored copy differs"; fi
if [ "$(dump --prefix by-dev/ | wc -l)" -eq "$want" ] && [ "$(dump --prefix by-dev/config/mqtype | grep -c "$(python3 -c "print(b'pulsar'.hex())")")" -eq 1 ]; then
	pass "the original is untouched by the rehearsal"
else fail "the original changed"; fi
no_folder_left "rehearsal"

# Broken files are refused before any shell runs.
head -n -1 "$F" >"$WORK/truncated.jsonl"
run_heron_lb() { printf '%s\n' "$2" | "$HERON" load-backup "$1" >"$WORK/out" 2>"$WORK/err"; RC=$?; OUT=$(cat "$WORK/out"); ERR=$(cat "$WORK/err"); }
run_heron_lb "$WORK/truncated.jsonl" "show checkpoint"
expect_rc 1 "a truncated backup"
expect_err "truncated" "the error says truncated"
if [ -z "$OUT" ]; then pass "no shell on a truncated file"; else fail "a shell ran on a truncated file"; fi
sed '3d' "$F" >"$WORK/tampered.jsonl"
run_heron_lb "$WORK/tampered.jsonl" "show checkpoint"
expect_rc 1 "a backup with an entry removed"
expect_err "end line says" "the error names the count"
run_heron_lb "$RB" "show checkpoint"
expect_rc 1 "a write command's backup"
expect_err "not a copy of an instance" "load-backup wants a full backup"
no_folder_left "refusals"
"$HERON" load-backup --help >"$WORK/out" 2>&1
RC=$? OUT=$(cat "$WORK/out")
expect_rc 0 "load-backup --help"
expect_out "heron load-backup FILE" "the help names the usage"

# SIGTERM while the copy waits for its next line: exit 1, folder removed.
mkfifo "$WORK/in"
"$HERON" load-backup "$F" <"$WORK/in" >"$WORK/sig.out" 2>"$WORK/sig.err" &
pid=$!
exec 3>"$WORK/in"
echo "show session --format line" >&3
for _ in $(seq 1 600); do
	grep -q "removed on exit" "$WORK/sig.err" && [ -s "$WORK/sig.out" ] && break
	sleep 0.1
done
dir=$(folder_of "$WORK/sig.err")
if [ -n "$dir" ] && [ -d "$dir" ]; then pass "the folder exists while the copy runs"; else fail "no folder while running: $(cat "$WORK/sig.err")"; fi
kill -TERM "$pid"
wait "$pid"
RC=$? ERR=$(cat "$WORK/sig.err") OUT=""
exec 3>&-
expect_rc 1 "SIGTERM ends load-backup"
expect_err "stopping and removing the load-backup folder" "load-backup says it removes its folder"
if [ -n "$dir" ] && [ ! -e "$dir" ]; then pass "the folder is removed on SIGTERM"; else fail "folder '$dir' after SIGTERM"; fi
no_folder_left "SIGTERM"
finish
