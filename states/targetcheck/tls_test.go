package targetcheck_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/heron-shell/heron/states/targetcheck"
)

// selfSigned is a CA-signed server certificate for 127.0.0.1 and the CA's PEM.
func selfSigned(t *testing.T) (tls.Certificate, []byte) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "heron test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	caCert, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "broker"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}

func TestKafkaTLS(t *testing.T) {
	cert, caPEM := selfSigned(t)
	c := newCluster(t, kfake.TLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}), kfake.SeedTopics(1, dml0))
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, caPEM, 0o600))

	f := targetcheck.Flags{KafkaFlags: targetcheck.KafkaFlags{KafkaBrokers: c.ListenAddrs()[0], KafkaSSLEnabled: true, KafkaSSLCACert: ca}}
	require.NoError(t, f.Validate("show checkpoint", ""))
	cfg, err := f.KafkaConfig()
	require.NoError(t, err)
	got, err := targetcheck.CheckKafka(context.Background(), cfg, []string{dml0})
	require.NoError(t, err)
	assert.Equal(t, targetcheck.Empty, got[0].State)

	// Without the CA the broker's certificate is not trusted.
	f.KafkaSSLCACert = ""
	cfg, err = f.KafkaConfig()
	require.NoError(t, err)
	cfg.Timeout = 2 * time.Second
	_, err = targetcheck.CheckKafka(context.Background(), cfg, []string{dml0})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "certificate")
}
