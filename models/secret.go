package models

import "strings"

// secretWords are the parts of a formatted key (FormatConfigKey: lower case,
// without '/', '_' and '.') that name a secret: passwords, secrets, tokens,
// credentials. Milvus itself redacts the online switch's config only in its
// logs (issue 26): the metastore holds it in clear, in
// alter_wal_state.configs and in the AlterWAL broadcast header.
var secretWords = []string{"password", "passwd", "secret", "token", "credential"}

// keyMaterialWords are the parts of a formatted key that, next to "key",
// name key material: ssl.key.pem, tls.key, sasl private keys, access keys,
// API keys.
var keyMaterialWords = []string{"ssl", "tls", "pem", "private", "access", "api", "sasl", "signing", "encryption"}

// IsSecretKey reports whether a setting's value is a secret to mask in
// every output shown to a user: its formatted key (FormatConfigKey, so
// "sasl.password", "SASL_PASSWORD" and "config/sasl/password" agree) holds
// password, secret, token or credential, or "key" beside a word of key
// material (ssl.key.pem, tls.key, minio.accessKeyID).
func IsSecretKey(key string) bool {
	f := FormatConfigKey(strings.ToLower(key))
	for _, w := range secretWords {
		if strings.Contains(f, w) {
			return true
		}
	}
	if !strings.Contains(f, "key") {
		return false
	}
	for _, w := range keyMaterialWords {
		if strings.Contains(f, w) {
			return true
		}
	}
	return false
}

// MaskedSecret is what outputs print in place of a secret value; the
// --show-secrets flag prints the value itself.
const MaskedSecret = "<masked: --show-secrets>"

// MaskSecret returns value, or MaskedSecret when key names a secret and
// show is false. An empty value stays empty (nothing to hide).
func MaskSecret(key, value string, show bool) string {
	if show || value == "" || !IsSecretKey(key) {
		return value
	}
	return MaskedSecret
}

// MaskSecrets returns a copy of a config map with every secret masked
// (the map itself when show or nothing is secret).
func MaskSecrets(m map[string]string, show bool) map[string]string {
	if show || len(m) == 0 {
		return m
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = MaskSecret(k, v, false)
	}
	return out
}
