# After a killed run (issue 27 item 2), against Debian's etcd with
# bin/heron-failpoints: a reset --run killed with SIGKILL mid-write leaves a
# split state; a new session from another folder (a new pod) is told on
# connect that the instance is split, and show checkpoint --backup-dir names
# the two exact commands: the reset that completes it and the restore that
# rolls it back. Each command, copied from the output, works: the rollback
# gives the original dump back, and (on a second split) the completion
# gives a consistent instance.
. "$(dirname "$0")/../lib.sh"
use_failpoints
start_etcd
seed --wal pulsar --rootPath by-dev
dump >"$WORK/original.dump"
BK=$WORK/backups
POD1=$WORK/pod1
POD2=$WORK/pod2
mkdir -p "$BK" "$POD1" "$POD2"

# killed_run: reset to kafka --run from pod1, SIGKILLed after 2 transactions.
killed_run() {
	(cd "$POD1" && printf '%s\n' "$(connect_line)" "reset checkpoint --target-wal kafka --max-txn-ops 4 --run --backup-dir $BK" |
		HERON_APPLY_CONCURRENCY=1 HERON_APPLY_KILL_AFTER_TXNS=2 "$HERON" >"$WORK/out" 2>"$WORK/err") 2>/dev/null # no "Killed" job notice
	RC=$?
	OUT=$(cat "$WORK/out")
	ERR=$(cat "$WORK/err")
}
# from_pod2 INPUT: heron (the release binary) in another folder.
from_pod2() {
	(cd "$POD2" && printf '%s\n' "$1" | "$REPO/bin/heron" >"$WORK/out" 2>"$WORK/err")
	RC=$?
	OUT=$(cat "$WORK/out")
	ERR=$(cat "$WORK/err")
}

killed_run
expect_rc 137 "the run is killed (SIGKILL) mid-write"

from_pod2 "$(connect_line)"
expect_rc 0 "connect from another folder"
expect_err "^warning: instance is SPLIT: an interrupted reset to kafka\?" "connect says the instance is split, and to which WAL the reset went"

from_pod2 "$(connect_line)
show checkpoint --pchannels"
expect_out "To roll it back, restore the interrupted run's backup; none found in \." "without --backup-dir, show checkpoint says no backup is in the working folder"
expect_out "show checkpoint --backup-dir DIR" "and how to look elsewhere"

from_pod2 "$(connect_line)
show checkpoint --pchannels --backup-dir $BK"
expect_out "^  reset checkpoint --target-wal kafka .*--run$" "show checkpoint names the completing reset on a line of its own"
expect_out "^  restore --file $BK/heron-backup-by-dev-reset-kafka-[^ ]+\.jsonl --run$" "show checkpoint names the backup to restore on a line of its own"
ROLLBACK=$(printf '%s\n' "$OUT" | sed -n 's/^  \(restore --file .* --run\)$/\1/p' | head -1)
COMPLETE=$(printf '%s\n' "$OUT" | sed -n 's/^  \(reset checkpoint --target-wal .* --run\)$/\1/p' | head -1)

from_pod2 "backups --dir $BK"
expect_out "^$BK/heron-backup-by-dev-reset-kafka-" "backups lists the backup with its path on a line of its own"
expect_out "^  root by-dev, revision [0-9]+, [0-9]+ keys, written " "with its revision and key count"

from_pod2 "$(connect_line)
$ROLLBACK --yes"
expect_rc 0 "the copied rollback command runs"
dump >"$WORK/after.dump"
if cmp -s "$WORK/original.dump" "$WORK/after.dump"; then pass "the rollback gives the original dump back"; else fail "the dump differs after the rollback"; fi

# A second killed run; this time the copied completion command.
killed_run
expect_rc 137 "a second run is killed mid-write"
from_pod2 "$(connect_line)
$COMPLETE --yes"
expect_rc 0 "the copied completion command runs"
from_pod2 "$(connect_line)
show checkpoint --pchannels"
expect_out "3 on kafka; none split" "after the completion every pchannel is on kafka, none split"
if printf '%s' "$ERR" | grep -q "instance is SPLIT"; then fail "connect still warns"; else pass "connect no longer warns"; fi
finish
