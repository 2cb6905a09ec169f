package show

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// ConfigEtcdParam is `show config-etcd`.
type ConfigEtcdParam struct {
	framework.ParamBase `use:"show config-etcd" desc:"Milvus's etcd config source: every key under {root}/config/ and its value, the mq.type override marked" example:"show config-etcd --format line"`
	Secrets
	Wide
	framework.Output
}

// Secrets is the --show-secrets flag of the listings that can print a
// secret stored in the metastore: embed it in a param struct.
type Secrets struct {
	ShowSecrets bool `name:"show-secrets" desc:"print secret values (keys naming a password, secret, token or key material; an online switch's config) instead of masking them"`
}

// ConfigRow is one key under {root}/config/.
type ConfigRow struct {
	// Key is relative to {root}/config/.
	Key          string `json:"key"`
	Value        string `json:"value"`
	FormattedKey string `json:"formatted_key"`
	// MQType: the key sets mq.type (its formatted key is "mqtype").
	MQType bool `json:"mq_type"`
	// Effective: of the keys that set mq.type, the one Milvus ends up with.
	Effective bool `json:"effective,omitempty"`
}

// MQTypeOverride is the mq.type Milvus reads from etcd.
type MQTypeOverride struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// ConfigEtcdResult is the output of `show config-etcd`.
type ConfigEtcdResult struct {
	wide     bool
	Revision int64           `json:"revision"`
	Prefix   string          `json:"prefix"`
	Keys     []ConfigRow     `json:"keys"`
	MQType   *MQTypeOverride `json:"mq_type_override"`
}

func runConfigEtcd(ctx context.Context, inst *instance.Instance, p *ConfigEtcdParam, out framework.IO) (framework.Result, error) {
	res, err := ConfigEtcd(ctx, inst, p.ShowSecrets, out.Stderr)
	if err != nil {
		return nil, err
	}
	res.wide = p.Wide.Wide
	return res, nil
}

// ConfigEtcd lists the keys of Milvus's etcd config source, at one revision;
// unless showSecrets, the value of a key naming a secret (kafka.saslPassword,
// ssl.key.pem: models.IsSecretKey) is masked.
func ConfigEtcd(ctx context.Context, inst *instance.Instance, showSecrets bool, warn io.Writer) (*ConfigEtcdResult, error) {
	if warn == nil {
		warn = io.Discard
	}
	prefix := inst.Layout.Root(models.ConfigPrefix)
	res := &ConfigEtcdResult{Prefix: prefix, Keys: []ConfigRow{}}
	rev, err := inst.Scan(ctx, prefix, 0, func(page []instance.KV) error {
		for _, kv := range page {
			key := strings.TrimPrefix(kv.Key, prefix)
			res.Keys = append(res.Keys, ConfigRow{Key: key, Value: models.MaskSecret(key, string(kv.Value), showSecrets), FormattedKey: models.FormatConfigKey(key), MQType: models.IsMQTypeConfigKey(models.ConfigPrefix + key)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Revision = rev
	// Milvus registers each key in etcd order under its formatted form, so
	// the last mq.type key wins (pkg/v2 v2.6.23 config/etcd_source.go).
	var mq []int
	for i, k := range res.Keys {
		if k.MQType {
			mq = append(mq, i)
		}
	}
	if len(mq) > 0 {
		last := &res.Keys[mq[len(mq)-1]]
		last.Effective = true
		res.MQType = &MQTypeOverride{Key: last.Key, Value: last.Value}
		for _, i := range mq {
			if res.Keys[i].Value != last.Value {
				fmt.Fprintf(warn, "warning: %d keys under %s set mq.type with different values; Milvus reads %s=%s (the last in key order)\n",
					len(mq), prefix, escape(last.Key), escape(last.Value))
				break
			}
		}
	}
	return res, nil
}

func (r *ConfigEtcdResult) mqText() string {
	if r.MQType == nil {
		return "no mq.type override in etcd: Milvus takes mq.type from milvus.yaml or the environment"
	}
	return fmt.Sprintf("mq.type override: %s%s = %s (an etcd override wins over milvus.yaml)", r.Prefix, escape(r.MQType.Key), escape(r.MQType.Value))
}

func mqMark(k ConfigRow) string {
	switch {
	case k.Effective:
		return "mq.type (effective)"
	case k.MQType:
		return "mq.type (overridden by a later key)"
	}
	return ""
}

// JSON implements framework.Result.
func (r *ConfigEtcdResult) JSON() any { return r }

// Table implements framework.Result.
func (r *ConfigEtcdResult) Table(w io.Writer) error {
	t := newTable(w, "KEY", "VALUE", "FORMATTED KEY", "OVERRIDE").fit(r.wide, 0, 1, 2)
	for _, k := range r.Keys {
		t.row(k.Key, k.Value, k.FormattedKey, mqMark(k))
	}
	if err := t.flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d key(s) under %s\n%s\n", len(r.Keys), r.Prefix, r.mqText())
	return err
}

// Lines implements framework.Result.
func (r *ConfigEtcdResult) Lines(w io.Writer) error {
	for _, k := range r.Keys {
		if err := line(w, "config", "key", escape(k.Key), "value", escape(k.Value), "formatted_key", escape(k.FormattedKey),
			"mq_type", boolS(k.MQType), "effective", boolS(k.Effective)); err != nil {
			return err
		}
	}
	mqKey, mqValue := "", ""
	if r.MQType != nil {
		mqKey, mqValue = escape(r.MQType.Key), escape(r.MQType.Value)
	}
	return line(w, "config-summary", "keys", itoa(len(r.Keys)), "mq_type_key", mqKey, "mq_type", mqValue)
}
