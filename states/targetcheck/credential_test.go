package targetcheck

import (
	"slices"
	"testing"
)

// The recorded words that log in with a credential the words do not hold:
// a token file (Pulsar), a SASL mechanism (the password from the
// environment); an address alone, a CA file, a tenant do not.
func TestSendsCredential(t *testing.T) {
	words := []string{"--target-wal=kafka", "--kafka-brokers=b:9092", "--kafka-sasl-mechanisms=PLAIN", "--kafka-ssl-ca-cert=/ca.pem",
		"--pulsar-admin=http://p:8080", "--pulsar-tenant=t", "--pulsar-token-file=/tok"}
	if got := SendsCredential(words); !slices.Equal(got, []string{"--kafka-sasl-mechanisms=PLAIN", "--pulsar-token-file=/tok"}) {
		t.Fatalf("got %v", got)
	}
	if got := SendsCredential([]string{"--target-wal=kafka", "--kafka-brokers=b:9092"}); len(got) != 0 {
		t.Fatalf("an address alone: %v", got)
	}
}
