package targetcheck

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
)

// Flags are the target-check flags of reset checkpoint and show checkpoint:
// the Kafka and the Pulsar target's, and the Milvus release the checks
// assume when no session names it.
type Flags struct {
	KafkaFlags
	PulsarFlags
	MilvusVersion string `name:"milvus-version" placeholder:"X.Y.Z" complete:"-" desc:"the instance's Milvus release when no session names it (a stopped instance's sessions expire): 2.6.0-2.6.8 write Pulsar topics to public/default; 3.x reads Kafka's earliest as -2"`
}

// KafkaFlags are the flags that reach a Kafka target; they mirror Milvus's
// kafka.* settings (pkg/v2@v2.6.23 util/paramtable/service_param.go:
// brokerList, saslUsername, saslPassword, saslMechanisms, securityProtocol,
// ssl.enabled, ssl.tlsCert, ssl.tlsKey, ssl.tlsCaCert, ssl.tlsKeyPassword);
// secrets also come from the environment. check reads a Kafka target alone.
type KafkaFlags struct {
	KafkaBrokers          string `name:"kafka-brokers" placeholder:"HOST:PORT[,...]" complete:"-" desc:"the Kafka target's brokers (Milvus's kafka.brokerList): read each pchannel's topic (partition 0)"`
	KafkaSASLUsername     string `name:"kafka-sasl-username" placeholder:"USER" complete:"-" env:"KAFKA_SASL_USERNAME" desc:"SASL user for --kafka-brokers (kafka.saslUsername)"`
	KafkaSASLPassword     string `name:"kafka-sasl-password" placeholder:"PASSWORD" complete:"-" secret:"true" env:"KAFKA_SASL_PASSWORD" desc:"SASL password for --kafka-brokers (kafka.saslPassword; better from the environment)"`
	KafkaSASLMechanisms   string `name:"kafka-sasl-mechanisms" enum:"PLAIN,SCRAM-SHA-256,SCRAM-SHA-512" complete:"-" desc:"SASL mechanism (kafka.saslMechanisms): PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512"`
	KafkaSecurityProtocol string `name:"kafka-security-protocol" enum:"PLAINTEXT,SSL,SASL_PLAINTEXT,SASL_SSL" complete:"-" desc:"kafka.securityProtocol: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL (SSL and SASL_SSL use TLS)"`
	KafkaSSLEnabled       bool   `name:"kafka-ssl-enabled" desc:"connect to --kafka-brokers over TLS (kafka.ssl.enabled)"`
	KafkaSSLCACert        string `name:"kafka-ssl-ca-cert" placeholder:"FILE" complete:"-" desc:"PEM CA certificate(s) that sign the brokers' certificates (kafka.ssl.tlsCaCert; default: the system's)"`
	KafkaSSLCert          string `name:"kafka-ssl-cert" placeholder:"FILE" complete:"-" desc:"PEM client certificate (kafka.ssl.tlsCert)"`
	KafkaSSLKey           string `name:"kafka-ssl-key" placeholder:"FILE" complete:"-" desc:"PEM client private key (kafka.ssl.tlsKey)"`
	KafkaSSLKeyPassword   string `name:"kafka-ssl-key-password" placeholder:"PASSWORD" complete:"-" secret:"true" env:"KAFKA_SSL_KEY_PASSWORD" desc:"passphrase of an encrypted --kafka-ssl-key (kafka.ssl.tlsKeyPassword)"`
}

// PulsarFlags are the flags that reach a Pulsar target's admin API.
type PulsarFlags struct {
	PulsarAdmin     string `name:"pulsar-admin" placeholder:"URL" complete:"-" desc:"the Pulsar target's admin API, e.g. http://pulsar:8080 (pulsar.webport): read each pchannel's topic"`
	PulsarTenant    string `name:"pulsar-tenant" placeholder:"TENANT" complete:"-" desc:"Pulsar tenant of the topics (default: the instance's pulsar.tenant override in etcd, else public)"`
	PulsarNamespace string `name:"pulsar-namespace" placeholder:"NAMESPACE" complete:"-" desc:"Pulsar namespace of the topics (default: the instance's pulsar.namespace override in etcd, else default)"`
	PulsarTokenFile string `name:"pulsar-token-file" placeholder:"FILE" complete:"-" desc:"file holding a token for the admin API (sent as a bearer token)"`
}

// credentialFlags are the flags whose check logs in, at the address the
// flags name, with a credential the flags do not hold: the content of
// --pulsar-token-file (a bearer token), the SASL password of the
// environment (--kafka-sasl-mechanisms).
var credentialFlags = []string{"pulsar-token-file", "kafka-sasl-mechanisms"}

// SendsCredential are the recorded flag words (framework.RecordedFlags,
// "--name=value") that make the check send a credential to an address the
// words name: words read from a plan file must not choose where a token or
// a password goes.
func SendsCredential(words []string) []string {
	var out []string
	for _, w := range words {
		name, _, _ := strings.Cut(strings.TrimPrefix(w, "--"), "=")
		if slices.Contains(credentialFlags, name) {
			out = append(out, w)
		}
	}
	return out
}

// Kafka reports whether the Kafka check was asked for.
func (f *KafkaFlags) Kafka() bool { return f.KafkaBrokers != "" }

// Pulsar reports whether the Pulsar check was asked for.
func (f *PulsarFlags) Pulsar() bool { return f.PulsarAdmin != "" }

// Validate checks that the flags given fit the target WAL (target "" : any,
// as show checkpoint allows) and one another. It reads no file.
func (f *Flags) Validate(command, target string) error {
	if err := f.KafkaFlags.Validate(command); err != nil {
		return err
	}
	if err := f.PulsarFlags.Validate(command); err != nil {
		return err
	}
	if f.MilvusVersion != "" {
		if _, err := models.ParseMilvusVersion(f.MilvusVersion); err != nil {
			return framework.Usagef("%s: --milvus-version: %v", command, err)
		}
	}
	if f.Kafka() && f.Pulsar() {
		return framework.Usagef("%s: --kafka-brokers and --pulsar-admin check different WALs: give one", command)
	}
	if f.Kafka() && target != "" && target != "kafka" {
		return framework.Usagef("%s: --kafka-brokers checks a Kafka target, not --target-wal %s", command, target)
	}
	if f.Pulsar() && target != "" && target != "pulsar" {
		return framework.Usagef("%s: --pulsar-admin checks a Pulsar target, not --target-wal %s", command, target)
	}
	return nil
}

// Validate checks the Kafka flags given fit one another. It reads no file.
func (f *KafkaFlags) Validate(command string) error {
	given := map[string]bool{
		"kafka-sasl-username": f.KafkaSASLUsername != "", "kafka-sasl-password": f.KafkaSASLPassword != "",
		"kafka-sasl-mechanisms": f.KafkaSASLMechanisms != "", "kafka-security-protocol": f.KafkaSecurityProtocol != "",
		"kafka-ssl-enabled": f.KafkaSSLEnabled, "kafka-ssl-ca-cert": f.KafkaSSLCACert != "", "kafka-ssl-cert": f.KafkaSSLCert != "",
		"kafka-ssl-key": f.KafkaSSLKey != "", "kafka-ssl-key-password": f.KafkaSSLKeyPassword != "",
	}
	if !f.Kafka() {
		for _, n := range sortedTrue(given) {
			return framework.Usagef("%s: --%s needs --kafka-brokers", command, n)
		}
		return nil
	}
	for _, b := range strings.Split(f.KafkaBrokers, ",") {
		host, port, err := net.SplitHostPort(strings.TrimSpace(b))
		if n, perr := strconv.ParseUint(port, 10, 16); err != nil || perr != nil || n == 0 || host == "" {
			return framework.Usagef("%s: --kafka-brokers %q: want HOST:PORT[,HOST:PORT...]", command, f.KafkaBrokers)
		}
	}
	if (f.KafkaSASLUsername == "") != (f.KafkaSASLPassword == "") {
		return framework.Usagef("%s: --kafka-sasl-username and --kafka-sasl-password (or $KAFKA_SASL_PASSWORD) go together", command)
	}
	if f.KafkaSASLUsername != "" && f.KafkaSASLMechanisms == "" {
		return framework.Usagef("%s: --kafka-sasl-username needs --kafka-sasl-mechanisms (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)", command)
	}
	if strings.HasPrefix(f.KafkaSecurityProtocol, "SASL_") && f.KafkaSASLUsername == "" {
		return framework.Usagef("%s: --kafka-security-protocol %s needs --kafka-sasl-username and a password", command, f.KafkaSecurityProtocol)
	}
	if (f.KafkaSSLCert == "") != (f.KafkaSSLKey == "") {
		return framework.Usagef("%s: --kafka-ssl-cert and --kafka-ssl-key go together", command)
	}
	if !f.kafkaTLS() && (f.KafkaSSLCACert != "" || f.KafkaSSLCert != "" || f.KafkaSSLKeyPassword != "") {
		return framework.Usagef("%s: the --kafka-ssl-* files need --kafka-ssl-enabled or --kafka-security-protocol SSL or SASL_SSL", command)
	}
	return nil
}

// Validate checks the Pulsar flags given fit one another. It reads no file.
func (f *PulsarFlags) Validate(command string) error {
	given := map[string]bool{"pulsar-tenant": f.PulsarTenant != "", "pulsar-namespace": f.PulsarNamespace != "", "pulsar-token-file": f.PulsarTokenFile != ""}
	if !f.Pulsar() {
		for _, n := range sortedTrue(given) {
			return framework.Usagef("%s: --%s needs --pulsar-admin", command, n)
		}
		return nil
	}
	u, err := url.Parse(f.PulsarAdmin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return framework.Usagef("%s: --pulsar-admin %q: want http://HOST:PORT or https://HOST:PORT (the admin API, pulsar.webport)", command, f.PulsarAdmin)
	}
	for n, v := range map[string]string{"pulsar-tenant": f.PulsarTenant, "pulsar-namespace": f.PulsarNamespace} {
		if strings.ContainsAny(v, "/?#% ") {
			return framework.Usagef("%s: --%s %q: a Pulsar name has no '/', '?', '#', '%%' or space", command, n, v)
		}
	}
	return nil
}

func (f *KafkaFlags) kafkaTLS() bool {
	return f.KafkaSSLEnabled || f.KafkaSecurityProtocol == "SSL" || f.KafkaSecurityProtocol == "SASL_SSL"
}

// KafkaConfig reads the TLS files the flags name into a Kafka check's
// configuration. Call it after Validate.
func (f *KafkaFlags) KafkaConfig() (KafkaConfig, error) {
	c := KafkaConfig{Mechanism: f.KafkaSASLMechanisms, User: f.KafkaSASLUsername, Password: f.KafkaSASLPassword}
	for _, b := range strings.Split(f.KafkaBrokers, ",") {
		c.Brokers = append(c.Brokers, strings.TrimSpace(b))
	}
	if !f.kafkaTLS() {
		return c, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.KafkaSSLCACert != "" {
		pemBytes, err := os.ReadFile(f.KafkaSSLCACert)
		if err != nil {
			return c, fmt.Errorf("--kafka-ssl-ca-cert: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pemBytes) {
			return c, fmt.Errorf("--kafka-ssl-ca-cert %s: no PEM certificate in it", f.KafkaSSLCACert)
		}
		tc.RootCAs = pool
	}
	if f.KafkaSSLCert != "" {
		cert, err := clientCert(f.KafkaSSLCert, f.KafkaSSLKey, f.KafkaSSLKeyPassword)
		if err != nil {
			return c, err
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	c.TLS = tc
	return c, nil
}

// clientCert loads a client certificate and key; an encrypted legacy PEM key
// (Proc-Type: 4,ENCRYPTED, what librdkafka's ssl.key.password opens) is
// decrypted with password. Errors never quote the password.
func clientCert(certFile, keyFile, password string) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("--kafka-ssl-cert: %w", err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("--kafka-ssl-key: %w", err)
	}
	if block, _ := pem.Decode(keyPEM); block != nil {
		//nolint:staticcheck // legacy PEM encryption is what kafka.ssl.tlsKeyPassword opens; Go has no other decrypter.
		if x509.IsEncryptedPEMBlock(block) {
			if password == "" {
				return tls.Certificate{}, fmt.Errorf("--kafka-ssl-key %s is encrypted: give --kafka-ssl-key-password or $KAFKA_SSL_KEY_PASSWORD", keyFile)
			}
			//nolint:staticcheck // see above
			der, err := x509.DecryptPEMBlock(block, []byte(password))
			if err != nil {
				return tls.Certificate{}, fmt.Errorf("--kafka-ssl-key %s: cannot decrypt it with the password given", keyFile)
			}
			keyPEM = pem.EncodeToMemory(&pem.Block{Type: block.Type, Bytes: der})
		} else if block.Type == "ENCRYPTED PRIVATE KEY" {
			return tls.Certificate{}, fmt.Errorf("--kafka-ssl-key %s: an encrypted PKCS#8 key is not supported: decrypt it (openssl pkcs8) or use a legacy PEM-encrypted key", keyFile)
		}
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("--kafka-ssl-cert %s / --kafka-ssl-key %s: %w", certFile, keyFile, err)
	}
	return cert, nil
}

// PulsarConfig is the Pulsar check's configuration: tenant and namespace as
// given (the caller fills in the instance's defaults), the token read from
// --pulsar-token-file.
func (f *Flags) PulsarConfig(tenant, namespace string) (PulsarConfig, error) {
	c := PulsarConfig{Admin: strings.TrimRight(f.PulsarAdmin, "/"), Tenant: tenant, Namespace: namespace}
	if f.PulsarTokenFile != "" {
		b, err := os.ReadFile(f.PulsarTokenFile)
		if err != nil {
			return c, fmt.Errorf("--pulsar-token-file: %w", err)
		}
		c.Token = strings.TrimSpace(string(b))
		if c.Token == "" {
			return c, fmt.Errorf("--pulsar-token-file %s is empty", f.PulsarTokenFile)
		}
	}
	return c, nil
}

func sortedTrue(m map[string]bool) []string {
	var out []string
	for k, v := range m {
		if v {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
