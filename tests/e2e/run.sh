#!/usr/bin/env bash
# Runs every e2e script against the built bin/heron and Debian's etcd server.
set -u
cd "$(dirname "$0")/../.."
command -v etcd >/dev/null || { echo "e2e: etcd not found (apt-get install -y etcd-server)" >&2; exit 1; }
[ -x bin/heron ] || { echo "e2e: bin/heron missing (make build)" >&2; exit 1; }
CGO_ENABLED=0 go build -o bin/etcdtool ./tests/e2e/etcdtool || exit 1
CGO_ENABLED=0 go build -o bin/kafkafake ./tests/e2e/kafkafake || exit 1
passed=0
failed=0
for t in tests/e2e/commands/test_*.sh; do
	echo "== $t"
	if bash "$t"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
