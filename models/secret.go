package models

import "strings"

// secretWords are the parts of a formatted key (FormatConfigKey: lower case,
// without '/', '_' and '.') that name a secret: passwords, secrets, tokens,
// credentials. Milvus itself redacts the online switch's config only in its
// logs (issue 26): the metastore holds it in clear, in
// alter_wal_state.configs and in the AlterWAL broadcast header.
// pulsar.authParams ("token:...") and sasl.jaas.config (a JAAS line with
// the password in it) carry secrets under other names.
var secretWords = []string{"password", "passwd", "passphrase", "secret", "token", "credential", "authparams", "jaas"}

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
const MaskedSecret = "(masked: --show-secrets)"

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

// MaskView returns a decoded view (DecodeAny's) with the secrets it holds
// masked, unless show: alter_wal_state.configs of a consume checkpoint, and
// an AlterWAL broadcast task's config (decoded, and its raw _h header
// property, base64 of the same map). Other views are returned as they are.
func MaskView(view any, show bool) any {
	if show {
		return view
	}
	switch v := view.(type) {
	case *ConfigEntry:
		if m := MaskSecret(v.Key, v.Value, false); m != v.Value {
			e := *v
			e.Value = m
			return &e
		}
		return v
	case *WALCheckpoint:
		if v.AlterWAL == nil || len(v.AlterWAL.Configs) == 0 {
			return v
		}
		cp, a := *v, *v.AlterWAL
		a.Configs = MaskSecrets(a.Configs, false)
		cp.AlterWAL = &a
		return &cp
	case *BroadcastTask:
		if v.AlterWAL == nil {
			return v
		}
		bt, a := *v, *v.AlterWAL
		a.Config = MaskSecrets(a.Config, false)
		bt.AlterWAL = &a
		if h, ok := v.Properties[propHeader]; ok && h != "" && hasSecret(v.AlterWAL.Config) {
			bt.Properties = make(map[string]string, len(v.Properties))
			for k, p := range v.Properties {
				bt.Properties[k] = p
			}
			bt.Properties[propHeader] = MaskedSecret
		}
		return &bt
	}
	return view
}

// HoldsSecret reports whether the value of an absolute key holds a secret
// MaskView would mask (a consume checkpoint's alter_wal_state.configs, an
// AlterWAL broadcast task's config, a secret config/ override): a dump
// then masks its raw bytes too.
func HoldsSecret(l Layout, abs string, value []byte) bool {
	if rel, ok := l.Rel(abs); ok {
		switch Classify(rel).Kind {
		case KindConsumeCheckpoint, KindBroadcastTask:
		default:
			return false
		}
	}
	_, view, err := DecodeAny(l, abs, value, 0)
	return err == nil && view != nil && MaskView(view, false) != view
}

func hasSecret(m map[string]string) bool {
	for k, v := range m {
		if v != "" && IsSecretKey(k) {
			return true
		}
	}
	return false
}
