# The Kubernetes Job form of docs/release.md:
# the connection and the password from the environment only, --olc with
# backup and reset --run on a "volume" folder, --format json; the password
# never on the command line nor in the output, and both backups on the
# volume restore the instance.
. "$(dirname "$0")/../lib.sh"
[ -x "$ETCDTOOL" ] || (cd "$REPO" && CGO_ENABLED=0 go build -o "$ETCDTOOL" ./tests/e2e/etcdtool) || exit 1
start_etcd
seed --wal pulsar --rootPath by-dev >/dev/null || { echo "seeding failed" >&2; exit 1; }
PASS='Job-pw-5c1d9e'
{ ctl user add "root:$PASS" && ctl auth enable; } >"$WORK/auth.log" 2>&1 ||
	{ echo "enabling etcd auth failed:" >&2; cat "$WORK/auth.log" >&2; exit 1; }
before=$(ctl --user "root:$PASS" get --prefix by-dev/ -w json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["kvs"]))')

VOL=$WORK/backups
POD=$WORK/pod
mkdir -p "$VOL" "$POD"
# The container's args, as docs/release.md's Job gives them (YAML's >- folds the lines).
OLC='connect, backup --file '$VOL'/by-dev-before-reset.jsonl, reset checkpoint --target-wal kafka --run --backup-dir '$VOL' --format json'
(cd "$POD" && env -u ETCD_PASSWORD HERON_ETCD="$ETCD" HERON_ROOT_PATH=by-dev HERON_ETCD_USER=root HERON_ETCD_PASSWORD="$PASS" \
	HERON_HOME="$POD" "$HERON" --olc "$OLC" </dev/null >"$WORK/out" 2>"$WORK/err")
RC=$?
OUT=$(cat "$WORK/out")
ERR=$(cat "$WORK/err")
expect_rc 0 "the Job form: connect from the environment, backup, reset --run"
case "$OLC" in *"$PASS"*) fail "the password is on the command line" ;; *) pass "no password on the command line" ;; esac
if printf '%s\n%s' "$OUT" "$ERR" | grep -qF "$PASS"; then fail "the password appears in the output"; else pass "no password in the output"; fi
# stdout: one JSON document, the reset's (backup prints its result as a table
# without --format json; docs/release.md's form puts --format json on the write).
if printf '%s' "$OUT" | python3 -c '
import json, sys
s = sys.stdin.read(); dec = json.JSONDecoder(); docs = []; i = 0
while i < len(s):
    while i < len(s) and s[i].isspace(): i += 1
    if i == len(s): break
    try:
        d, i = dec.raw_decode(s, i); docs.append(d)
    except ValueError:
        i = s.find("\n", i) + 1 or len(s)
assert any(isinstance(d, dict) and d.get("verify", {}).get("ok") for d in docs), docs
'; then pass "the reset's JSON document says verify ok"; else fail "no reset JSON with verify ok on stdout"; fi
if [ -s "$VOL/by-dev-before-reset.jsonl" ] && ls "$VOL"/heron-backup-by-dev-reset-kafka-*.jsonl >/dev/null 2>&1; then
	pass "both backups are on the volume"
else fail "backups on the volume: $(ls "$VOL")"; fi
if [ -z "$(ls -A "$POD" | grep -v '^history$')" ]; then pass "nothing written to the pod's working folder"; else fail "the working folder holds $(ls "$POD")"; fi

# Rolling back from the volume, in the same form.
RESTORE=$(ls "$VOL"/heron-backup-by-dev-reset-kafka-*.jsonl | head -1)
(cd "$POD" && HERON_ETCD="$ETCD" HERON_ETCD_USER=root ETCD_PASSWORD="$PASS" \
	"$HERON" --olc "connect, restore --file $RESTORE --run --backup-dir $VOL --format json" </dev/null >"$WORK/out" 2>"$WORK/err")
RC=$?
OUT=$(cat "$WORK/out")
ERR=$(cat "$WORK/err")
expect_rc 0 "restore from the volume (password from ETCD_PASSWORD)"
after=$(ctl --user "root:$PASS" get --prefix by-dev/ -w json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["kvs"]))')
if [ "$after" -eq "$before" ]; then pass "the instance has its $before keys again"; else fail "keys: $before before, $after after the restore"; fi
finish
