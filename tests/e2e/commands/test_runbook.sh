# The runbooks (docs/runbook/) against the binary: every page's ```heron
# blocks, in order, typed into heron after `connect` on Debian's etcd seeded
# with heron demo's instance on the page's source WAL (etcdtool seed --demo),
# each line exit 0, and at the end every pchannel on the page's target, none
# split. The placeholders become the test's: ETCD_HOST:2379 the etcd,
# BACKUP_DIR a temporary folder, KAFKA_HOST:9092 a Kafka broker without the
# topics (kafkafake), http://PULSAR_HOST:8080 an admin API that knows no topic
# (404: absent), MILVUS_VERSION the demo's 2.6.23. The ```heron-live and
# ```heron-s3 blocks need a running Milvus or object storage: each of their
# flags must be one `help COMMAND` lists. A page and a binary that disagree
# (a renamed flag, a changed command or output) fail here.
# RUNBOOK_DIR reads the pages from another folder (a copy under test).
. "$(dirname "$0")/../lib.sh"
RUNBOOK_DIR=${RUNBOOK_DIR:-$REPO/docs/runbook}
PAGES="pulsar-to-woodpecker kafka-to-woodpecker rocksmq-to-woodpecker woodpecker-to-kafka woodpecker-to-pulsar kafka-to-pulsar pulsar-to-kafka"

# blocks PAGE INFO: the lines of PAGE's fenced blocks whose info string is
# exactly INFO, in order (blank lines left out); exit 1 when the page is
# missing or a block is not closed.
blocks() {
	python3 - "$1" "$2" <<'PY'
import sys
path, info = sys.argv[1], sys.argv[2]
try:
    lines = open(path).read().split("\n")
except OSError as e:
    sys.exit(f"{path}: {e.strerror}")
inside = None
for n, line in enumerate(lines, 1):
    if inside is None:
        if line.startswith("```"):
            inside = line[3:].strip()
            opened = n
        continue
    if line.startswith("```"):
        inside = None
        continue
    if inside == info and line.strip():
        print(line)
if inside is not None:
    sys.exit(f"{path}: the block opened on line {opened} is not closed")
PY
}

start_etcd
start_kafka kafka
# A Pulsar admin API without any topic: every request is 404 (absent).
PULSAR_PORT=$(free_port)
python3 - "$PULSAR_PORT" >"$WORK/pulsar.log" 2>&1 <<'PY' &
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"reason":"Topic not found"}')
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
PULSAR_PID=$!
trap 'kill "$PULSAR_PID" 2>/dev/null; cleanup' EXIT
for _ in $(seq 1 100); do
	python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 1)" "$PULSAR_PORT" 2>/dev/null && break
	sleep 0.1
done

# subst: the page's placeholders made the test's (BK: the page's backup folder).
subst() {
	sed -e "s|ETCD_HOST:2379|$ETCD|g" -e "s|BACKUP_DIR|$BK|g" -e "s|KAFKA_HOST:9092|$KAFKA|g" \
		-e "s|http://PULSAR_HOST:8080|http://127.0.0.1:$PULSAR_PORT|g" -e "s|MILVUS_VERSION|2.6.23|g"
}

# The pages are what scripts/runbook-pages.py writes: a page edited by hand
# would drift from the others' shared wording.
if [ "$RUNBOOK_DIR" = "$REPO/docs/runbook" ]; then
	mkdir -p "$WORK/generated"
	python3 "$REPO/scripts/runbook-pages.py" "$WORK/generated" || exit 1
	for page in $PAGES; do
		if cmp -s "$WORK/generated/$page.md" "$RUNBOOK_DIR/$page.md"; then pass "$page: as scripts/runbook-pages.py writes it"; else
			RC=1 OUT=$(diff "$WORK/generated/$page.md" "$RUNBOOK_DIR/$page.md" | head -10) ERR=""
			fail "$page: differs from what scripts/runbook-pages.py writes (edit the script, run it)"
		fi
	done
fi

for page in $PAGES; do
	src=${page%%-to-*}
	tgt=${page##*-to-}
	file=$RUNBOOK_DIR/$page.md
	BK=$WORK/backups-$page
	mkdir -p "$BK"
	ctl del "" --from-key >/dev/null || exit 1
	seed --demo --wal "$src" --rootPath by-dev >/dev/null || { echo "test_runbook: seeding $src failed" >&2; exit 1; }

	if ! blocks "$file" heron >"$WORK/$page.heron" 2>"$WORK/$page.err"; then
		RC=1 OUT="" ERR=$(cat "$WORK/$page.err")
		fail "$page: its heron blocks cannot be read"
		continue
	fi
	subst <"$WORK/$page.heron" >"$WORK/$page.lines"
	if [ "$(wc -l <"$WORK/$page.lines")" -lt 3 ]; then
		RC=1 OUT=$(cat "$WORK/$page.heron") ERR=""
		fail "$page: fewer than 3 heron lines"
		continue
	fi
	if grep -nE '[A-Z][A-Z_]*(_HOST|_DIR|_VERSION)\b' "$WORK/$page.lines" >"$WORK/left"; then
		RC=1 OUT=$(cat "$WORK/left") ERR=""
		fail "$page: a placeholder the test does not know"
		continue
	fi
	dump_to "$WORK/$page.before"

	# The shell lines this machine can run, in order: the backup folder, the
	# etcd snapshots (steps 1 and 3), step 1's heron --olc backup (with this
	# heron). kubectl, helm, docker, kafka-topics.sh and pulsar-admin are not
	# run.
	blocks "$file" sh | grep -E '^(mkdir -p BACKUP_DIR$|ETCDCTL_API=3 etcdctl |heron --olc )' | subst >"$WORK/$page.sh"
	if [ "$(grep -c '^heron --olc ' "$WORK/$page.sh")" -ne 1 ] || [ "$(grep -c 'snapshot save' "$WORK/$page.sh")" -ne 2 ]; then
		RC=1 OUT=$(cat "$WORK/$page.sh") ERR=""
		fail "$page: its sh blocks lack step 1's heron --olc backup or the two etcd snapshots"
	fi
	while IFS= read -r line; do
		RC=0
		case $line in
		heron*) (eval "\"\$HERON\"${line#heron}") >"$WORK/out" 2>"$WORK/err" </dev/null || RC=$? ;;
		*) (eval "$line") >"$WORK/out" 2>"$WORK/err" </dev/null || RC=$? ;;
		esac
		OUT=$(cat "$WORK/out") ERR=$(cat "$WORK/err")
		expect_rc 0 "$page: sh: $line"
	done <"$WORK/$page.sh"
	for snap in etcd-before.db etcd-stopped.db; do
		if [ -s "$BK/$snap" ]; then pass "$page: BACKUP_DIR/$snap written"; else fail "$page: no BACKUP_DIR/$snap"; fi
	done

	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		run_heron "$(connect_line)
$line"
		expect_rc 0 "$page: heron line $n: $line"
		# What the pages tell the reader to look for in the output.
		case $line in
		"show session") expect_out ", 0 alive$" "$page: show session ends with '0 alive'" ;;
		"show broadcast-task") expect_out " 0 in flight$" "$page: show broadcast-task ends with '0 in flight'" ;;
		*" --run"*) expect_out "^verify: ok" "$page: $(printf '%s' "$line" | cut -d' ' -f1-2) --run says 'verify: ok'" ;;
		esac
	done <"$WORK/$page.lines"

	run_heron "$(connect_line)
show checkpoint --pchannels"
	expect_out "^3 pchannel\(s\): 3 on $tgt; none split" "$page: every pchannel is on $tgt, none split"
	if ls "$BK"/heron-backup-by-dev-reset-"$tgt"-rev*.jsonl >/dev/null 2>&1; then pass "$page: the reset's backup is in BACKUP_DIR"; else
		RC=1 OUT=$(ls "$BK") ERR=""
		fail "$page: no reset backup in BACKUP_DIR"
	fi

	# Step 9: the write commands' backups restored newest first (the highest
	# revision) put every key back byte for byte.
	for b in $(ls "$BK"/heron-backup-by-dev-*-rev*.jsonl 2>/dev/null | sed 's/.*-rev\([0-9]*\)-.*/\1 &/' | sort -rn | cut -d' ' -f2); do
		run_heron "$(connect_line)
restore --file $b --run --backup-dir $WORK"
		expect_rc 0 "$page: way back: restore --file $(basename "$b") --run"
	done
	dump_to "$WORK/$page.restored"
	same "$WORK/$page.before" "$WORK/$page.restored" "$page: way back: restored newest first, the instance is as it was"

	# The blocks that need a running Milvus or object storage: their commands
	# and flags as heron's help lists them.
	for info in heron-live heron-s3; do
		blocks "$file" "$info" >"$WORK/$page.$info" || { fail "$page: its $info blocks cannot be read"; continue; }
		while IFS= read -r line; do
			cmd=$(printf '%s\n' "$line" | awk '{for (i = 1; i <= NF && $i !~ /^--/; i++) printf "%s%s", (i > 1 ? " " : ""), $i}')
			# One help a command (the pages share them).
			cache=$WORK/help-$(printf '%s' "$cmd" | tr ' ' '_')
			if [ ! -f "$cache" ]; then
				run_heron "$(connect_line)
help $cmd"
				if [ "$RC" -ne 0 ]; then
					fail "$page: $info: help $cmd"
					continue
				fi
				printf '%s\n' "$OUT" >"$cache"
			fi
			OUT=$(cat "$cache")
			for flag in $(printf '%s\n' "$line" | grep -oE '(^| )--[a-zA-Z0-9-]+' | tr -d ' '); do
				if printf '%s\n' "$OUT" | grep -qE -- "^ +$flag( |$)"; then pass "$page: $info: $cmd $flag"; else fail "$page: $info: $cmd has no flag $flag"; fi
			done
		done <"$WORK/$page.$info"
	done
done
finish
