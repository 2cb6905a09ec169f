// Package resetwal is the `reset wal` command: it empties woodpecker's logs
// of a stopped Milvus instance's pchannels, so that woodpecker as the target
// of `reset checkpoint` starts fresh. Per log it deletes the per-log keys of
// woodpecker's metadata in etcd (shared/milvus-metadata.md section 7; the
// layout is models/woodpecker.go, the inventory states/woodpecker) and, with
// the --minio-* flags, the log's objects of woodpecker's layout
// (models.ClassifyWPObject, through states/objstore): objects first, etcd
// second, so that an interrupted run leaves the log listed and a re-run
// completes it. Every other woodpecker key (logidgen above all) is kept.
//
// A write command of the kit (framework/apply/README.md): params (this
// file), plan (plan.go), view (view.go). README.md beside this file
// documents the plan and its JSON.
package resetwal

import (
	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/states/objstore"
)

// Storage types of woodpecker.storage.type.
const (
	StorageMinio   = "minio"
	StorageLocal   = "local"
	StorageService = "service"
)

// Params are the flags of `reset wal`.
type Params struct {
	framework.ParamBase `use:"reset wal" desc:"empty woodpecker's logs of the instance's pchannels (etcd metadata; with --minio-address also their objects) so that woodpecker starts fresh (a plan unless --run)" example:"reset wal --target woodpecker --minio-address minio:9000 --minio-bucket a-bucket --run"`
	Target              string   `name:"target" required:"true" enum:"woodpecker" desc:"the WAL whose logs to empty: woodpecker"`
	PChannels           []string `name:"pchannel" placeholder:"PCHANNEL" desc:"only the log of this pchannel (default: the logs of every pchannel of the instance)"`
	WPMetaPrefix        string   `name:"wp-meta-prefix" placeholder:"PREFIX" desc:"woodpecker.meta.prefix when milvus.yaml sets it (default: the etcd config override, else woodpecker)"`
	StorageType         string   `name:"storage-type" placeholder:"minio|local|service" desc:"woodpecker.storage.type: minio (objects heron can delete with --minio-address), local or service (data heron cannot reach); default: the etcd config override, else minio"`
	AllowDataLeft       bool     `name:"allow-data-left" desc:"with --storage-type local or service: go on although the logs' data stays on the streaming nodes' disks or the woodpecker service"`
	MinioAddress        string   `name:"minio-address" placeholder:"HOST:PORT" desc:"object storage endpoint (Milvus's minio.address:minio.port): also delete the logs' objects"`
	MinioBucket         string   `name:"minio-bucket" default:"a-bucket" placeholder:"BUCKET" desc:"Milvus's minio.bucketName"`
	MinioRootPath       string   `name:"minio-root-path" default:"files" placeholder:"PATH" desc:"Milvus's minio.rootPath (woodpecker's objects are under PATH/wp/)"`
	MinioAccessKeyID    string   `name:"minio-access-key-id" placeholder:"ID" secret:"true" env:"MINIO_ACCESS_KEY_ID" desc:"access key id"`
	MinioSecretKey      string   `name:"minio-secret-access-key" placeholder:"KEY" secret:"true" env:"MINIO_SECRET_ACCESS_KEY" desc:"secret access key"`
	MinioUseSSL         bool     `name:"minio-use-ssl" desc:"reach the object storage over https"`
	framework.WriteFlags
	framework.Output
}

// Validate checks the flags that the tags cannot.
func (p *Params) Validate() error {
	seen := map[string]bool{}
	for _, pc := range p.PChannels {
		if pc == "" || seen[pc] {
			return framework.Usagef("reset wal: --pchannel %q is empty or given twice", pc)
		}
		seen[pc] = true
	}
	switch p.StorageType {
	case "", StorageMinio, StorageLocal, StorageService:
	default:
		return framework.Usagef("reset wal: --storage-type %q: want minio, local or service", p.StorageType)
	}
	if p.MinioAddress != "" && p.StorageType != "" && p.StorageType != StorageMinio {
		return framework.Usagef("reset wal: --minio-address is for --storage-type minio, not %s", p.StorageType)
	}
	return nil
}

// objects is the object storage the flags name (credentials from the
// flags or, through their env tags, MINIO_ACCESS_KEY_ID and
// MINIO_SECRET_ACCESS_KEY); ok is false without --minio-address.
func (p *Params) objects() (objstore.Config, bool) {
	if p.MinioAddress == "" {
		return objstore.Config{}, false
	}
	return objstore.Config{Address: p.MinioAddress, Bucket: p.MinioBucket, RootPath: p.MinioRootPath,
		AccessKeyID: p.MinioAccessKeyID, SecretAccessKey: p.MinioSecretKey, UseSSL: p.MinioUseSSL}, true
}
