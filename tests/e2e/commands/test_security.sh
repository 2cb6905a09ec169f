# TLS with client certificates and user/password auth against a real etcd
# server started with them; untrusted CAs and wrong passwords fail clearly;
# the password never shows in output, heron's files or a backup.
. "$(dirname "$0")/../lib.sh"
command -v openssl >/dev/null || { echo "test_security: openssl not found (apt-get install -y openssl)" >&2; exit 1; }

export HERON_HOME=$WORK/home
mkdir -p "$HERON_HOME"
# A password unlike anything else in the output, so a grep finds only a leak.
PASS='Sekr3t-pw-4b9e2f'
WRONG='Wr0ng-pw-71c5aa'

# start_secure_etcd SCHEME NAME [etcd flags]: like start_etcd, on SCHEME
# (http or https) with its own data dir; sets ETCD and ETCD_PID.
start_secure_etcd() {
	local scheme=$1 name=$2 port peer
	shift 2
	port=$(free_port)
	peer=$(free_port)
	ETCD=127.0.0.1:$port
	etcd --name "$name" --data-dir "$WORK/etcd-$name" \
		--listen-client-urls "$scheme://$ETCD" --advertise-client-urls "$scheme://$ETCD" \
		--listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
		--initial-cluster "$name=http://127.0.0.1:$peer" "$@" >"$WORK/etcd-$name.log" 2>&1 &
	ETCD_PID=$!
	for _ in $(seq 1 100); do
		if [ "$scheme" = https ]; then
			ETCDCTL_API=3 etcdctl --endpoints "https://$ETCD" --cacert "$WORK/ca.pem" --cert "$WORK/client.pem" \
				--key "$WORK/client-key.pem" endpoint health >/dev/null 2>&1 && return 0
		else
			ETCDCTL_API=3 etcdctl --endpoints "$ETCD" endpoint health >/dev/null 2>&1 && return 0
		fi
		sleep 0.1
	done
	echo "etcd ($name) did not start; log:" >&2
	tail -20 "$WORK/etcd-$name.log" >&2
	exit 1
}

# show_err: with E2E_VERBOSE=1, print the last stderr (to read the messages).
show_err() { [ -z "${E2E_VERBOSE:-}" ] || printf '  | %s\n' "$ERR"; }

# no_leak NAME: the password is nowhere in the last stdout/stderr.
no_leak() {
	if printf '%s\n%s' "$OUT" "$ERR" | grep -qF -e "$PASS" -e "$WRONG"; then
		fail "$1: the password appears in the output"
	else
		pass "$1: no password in stdout/stderr"
	fi
}

# --- a throwaway CA, a server and a client certificate ---------------------
(
	cd "$WORK" || exit 1
	ec() { openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "$@"; }
	ec -x509 -days 2 -subj "/CN=heron-e2e-ca" -keyout ca-key.pem -out ca.pem
	ec -x509 -days 2 -subj "/CN=heron-e2e-untrusted-ca" -keyout other-ca-key.pem -out other-ca.pem
	ec -subj "/CN=127.0.0.1" -keyout server-key.pem -out server.csr
	printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n' >server.ext
	openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 2 -extfile server.ext -out server.pem
	ec -subj "/CN=heron-client" -keyout client-key.pem -out client.csr
	printf 'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n' >client.ext
	openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 2 -extfile client.ext -out client.pem
	# A client certificate from the untrusted CA.
	ec -subj "/CN=heron-client" -keyout rogue-key.pem -out rogue.csr
	openssl x509 -req -in rogue.csr -CA other-ca.pem -CAkey other-ca-key.pem -CAcreateserial -days 2 -extfile client.ext -out rogue.pem
) >"$WORK/openssl.log" 2>&1 || { echo "openssl failed:" >&2; cat "$WORK/openssl.log" >&2; exit 1; }

# --- TLS with client certificates ----------------------------------------
start_secure_etcd https tls --cert-file "$WORK/server.pem" --key-file "$WORK/server-key.pem" \
	--trusted-ca-file "$WORK/ca.pem" --client-cert-auth
TLSFLAGS="--cacert $WORK/ca.pem --cert $WORK/client.pem --key-file $WORK/client-key.pem"
# shellcheck disable=SC2086
seed --wal pulsar $TLSFLAGS || { echo "seeding over TLS failed" >&2; exit 1; }

run_heron "connect --etcd $ETCD --rootPath by-dev --enableTLS --rootCAPem $WORK/ca.pem --etcdCert $WORK/client.pem --etcdKey $WORK/client-key.pem
show checkpoint --format json"
expect_rc 0 "TLS with a client certificate: connect and show checkpoint"
if printf '%s' "$OUT" | sed -n '/^{/,$p' | python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["pchannels"])==3, d' 2>/dev/null; then
	pass "TLS: show checkpoint reads the seeded pchannels"
else
	fail "TLS: show checkpoint JSON lacks the 3 seeded pchannels"
fi

run_heron "connect --etcd https://$ETCD --rootPath by-dev --enableTLS --rootCAPem $WORK/ca.pem --etcdCert $WORK/client.pem --etcdKey $WORK/client-key.pem
show collections"
expect_rc 0 "TLS: an https:// endpoint works too"

run_heron "connect --etcd $ETCD --rootPath by-dev --enableTLS --rootCAPem $WORK/other-ca.pem --etcdCert $WORK/client.pem --etcdKey $WORK/client-key.pem"
expect_rc 1 "an untrusted CA is refused"
show_err
expect_err "error: .*$ETCD" "untrusted CA: the error names the address"
expect_err "certificate|x509|authority|tls" "untrusted CA: the error says it is the certificate"
if [ "$TOOK" -le 15 ]; then pass "untrusted CA fails within the dial timeout (${TOOK}s)"; else fail "untrusted CA took ${TOOK}s"; fi

run_heron "connect --etcd $ETCD --rootPath by-dev --enableTLS --rootCAPem $WORK/ca.pem"
expect_rc 1 "no client certificate: refused by --client-cert-auth"
show_err
expect_err "error: .*$ETCD" "no client certificate: the error names the address"
expect_err "certificate" "no client certificate: the error says it is the certificate"

run_heron "connect --etcd $ETCD --rootPath by-dev --enableTLS --rootCAPem $WORK/ca.pem --etcdCert $WORK/rogue.pem --etcdKey $WORK/rogue-key.pem"
expect_rc 1 "a client certificate from another CA is refused"
show_err
expect_err "certificate" "client certificate from another CA: the error says so"

run_heron "connect --etcd $ETCD --rootPath by-dev"
expect_rc 1 "plain text against a TLS-only etcd fails"
show_err
expect_err "error: $ETCD: the server expects TLS: add --enableTLS" "plain text against TLS: the error says to add --enableTLS"
# At once, not after the 10 s dial timeout (configs.DefaultDialTimeout); 5 s
# leave a loaded machine its time to start heron.
if [ "$TOOK" -le 5 ]; then pass "plain text against TLS fails within 5 s (${TOOK}s)"; else fail "plain text against TLS took ${TOOK}s"; fi

run_heron "connect --etcd $ETCD --rootPath by-dev --enableTLS --rootCAPem $WORK/no-such-ca.pem"
expect_rc 1 "a missing CA file fails"
expect_err "no-such-ca.pem" "missing CA: the error names the file"

run_heron "connect --etcd $ETCD --rootPath by-dev --rootCAPem $WORK/ca.pem"
expect_rc 2 "--rootCAPem without --enableTLS is a usage error"
stop_etcd

# --- user/password auth --------------------------------------------------
start_secure_etcd http auth
seed --wal kafka >/dev/null || { echo "seeding failed" >&2; exit 1; }
enable_auth "$PASS"

run_heron "connect --etcd $ETCD --rootPath by-dev --enableTLS"
expect_rc 1 "TLS against a plain-text etcd fails"
expect_err "error: $ETCD: the server does not use TLS: drop --enableTLS" "TLS against plain text: the error says to drop --enableTLS"

run_heron "connect --etcd $ETCD --rootPath by-dev
show checkpoint"
expect_rc 1 "auth enabled: connecting without credentials fails"
show_err

run_heron "connect --etcd $ETCD --rootPath by-dev --etcdUserName root --etcdPassword $PASS
show checkpoint --format json"
expect_rc 0 "auth: --etcdUserName/--etcdPassword connect and show checkpoint"
expect_out '"pchannels"' "auth: show checkpoint printed"
no_leak "auth with --etcdPassword"

OUT=$(printf '%s\n' "connect --etcd $ETCD --rootPath by-dev --etcdUserName root" "show checkpoint" |
	ETCD_PASSWORD=$PASS "$HERON" 2>"$WORK/err")
RC=$?
ERR=$(cat "$WORK/err")
expect_rc 0 "auth: password from ETCD_PASSWORD"
expect_out "dml_0" "auth (ETCD_PASSWORD): show checkpoint printed"
no_leak "auth with ETCD_PASSWORD"

run_heron "connect --etcd $ETCD --rootPath by-dev --etcdUserName milvus --etcdPassword $PASS
show checkpoint"
expect_rc 0 "auth: a user granted only the root path's prefix can connect and read"
no_leak "auth as a prefix-scoped user"

run_heron "connect --etcd $ETCD --rootPath by-dev --etcdUserName root --etcdPassword $WRONG"
expect_rc 1 "a wrong password fails"
show_err
expect_err "error: .*(auth|password|user)" "wrong password: the error says authentication failed"
no_leak "wrong password"
if [ "$TOOK" -le 12 ]; then pass "wrong password fails at once (${TOOK}s)"; else fail "wrong password took ${TOOK}s"; fi

OUT=$(printf '%s\n' "connect --etcd $ETCD --rootPath by-dev --etcdUserName root" |
	ETCD_PASSWORD=$WRONG "$HERON" 2>"$WORK/err")
RC=$?
ERR=$(cat "$WORK/err")
expect_rc 1 "a wrong ETCD_PASSWORD fails"
no_leak "wrong ETCD_PASSWORD"

run_heron "connect --etcd $ETCD --rootPath by-dev --etcdUserName nobody --etcdPassword $PASS"
expect_rc 1 "an unknown user fails"
show_err
no_leak "unknown user"

# A write command's backup holds no credential.
mkdir -p "$WORK/bk"
run_heron "connect --etcd $ETCD --rootPath by-dev --etcdUserName root --etcdPassword $PASS
reset checkpoint --target-wal woodpecker --run --backup-dir $WORK/bk"
expect_rc 0 "auth: reset checkpoint --run"
no_leak "reset checkpoint --run"
if [ -n "$(ls -A "$WORK/bk" 2>/dev/null)" ]; then pass "the run wrote a backup"; else fail "no backup in $WORK/bk"; fi
if grep -rqF -e "$PASS" "$WORK/bk"; then fail "the password is in the backup file"; else pass "no password in the backup"; fi
if grep -rqF -e '"root"' -e 'etcdPassword' "$WORK/bk"; then fail "the backup names the user or the password flag"; else pass "no credential flag in the backup"; fi

run_heron "connect --etcd $ETCD --rootPath by-dev --etcdUserName root --etcdPassword $PASS
reset checkpoint --target-wal woodpecker --run --backup-dir $WORK/bk --no-such-flag"
expect_rc 2 "a usage error after connecting with a password"
no_leak "usage error"

# Nothing heron keeps (history, config, logs) holds the password.
if grep -rqF -e "$PASS" -e "$WRONG" "$HERON_HOME" 2>/dev/null; then fail "the password is in \$HERON_HOME"; else pass "no password in \$HERON_HOME"; fi
if grep -qF -e "$PASS" -e "$WRONG" "$WORK/out" "$WORK/err"; then fail "password in the last output files"; else pass "no password in the output files"; fi
stop_etcd

finish
