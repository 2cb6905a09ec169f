package chaos

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// KV is one key as etcd holds it: its value and mod revision.
type KV struct {
	Value  []byte
	ModRev int64
}

// Dump is every key of the etcd, as one range read at one revision gives
// it (the instances here are small).
type Dump struct {
	KVs map[string]KV
}

// ReadDump reads every key.
func ReadDump(ctx context.Context, cli *clientv3.Client) (Dump, error) {
	resp, err := cli.Get(ctx, "\x00", clientv3.WithFromKey())
	if err != nil {
		return Dump{}, fmt.Errorf("dump: %w", err)
	}
	d := Dump{KVs: make(map[string]KV, len(resp.Kvs))}
	for _, kv := range resp.Kvs {
		d.KVs[string(kv.Key)] = KV{Value: kv.Value, ModRev: kv.ModRevision}
	}
	return d, nil
}

// Values is the dump's values only (what "byte-identical" compares).
func (d Dump) Values() map[string][]byte {
	out := make(map[string][]byte, len(d.KVs))
	for k, kv := range d.KVs {
		out[k] = kv.Value
	}
	return out
}

// state is an etcd's content as values: what the checker compares.
type state map[string][]byte

func (s state) clone() state {
	out := make(state, len(s))
	for k, v := range s {
		out[k] = v
	}
	return out
}

// diff names up to max keys where a and b differ, skipping keys skip
// accepts; it returns how many differ in all.
func diff(a, b state, skip func(string) bool, max int) (int, []string) {
	var keys []string
	seen := map[string]bool{}
	for _, s := range []state{a, b} {
		for k := range s {
			if seen[k] || (skip != nil && skip(k)) {
				continue
			}
			seen[k] = true
			va, oka := a[k]
			vb, okb := b[k]
			if oka != okb || !bytes.Equal(va, vb) {
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	n := len(keys)
	if len(keys) > max {
		keys = keys[:max]
	}
	return n, keys
}

// describe is a short form of a value for a violation's text.
func describe(s state, k string) string {
	v, ok := s[k]
	if !ok {
		return "absent"
	}
	if len(v) > 24 {
		return fmt.Sprintf("%d bytes %x...", len(v), v[:24])
	}
	return fmt.Sprintf("%x", v)
}

func under(k string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}
