# The real woodpecker client (tests/wpfixtures, its own module) writes logs, bin/heron's
# `reset wal --run` empties them (metadata and objects, in-process S3), and the client reads
# new data from the earliest id. About 25 s, plus a first build of the woodpecker module.
. "$(dirname "$0")/../lib.sh"
RC=0
OUT=$(cd "$REPO/tests/wpfixtures" && CGO_ENABLED=0 go test -count=1 -run TestReadAfterResetWAL -v . 2>&1)
RC=$?
ERR=""
expect_rc 0 "real client reads new data from earliest after reset wal"
expect_out "PASS: TestReadAfterResetWAL" "the test ran (not skipped)"
finish
