package reset

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// BenchmarkResetPhases is BenchmarkReset's run on 20,000 segments with each
// phase of the run document reported beside the whole (verify-s/op is the
// read-back and the re-plan side by side): quiet (the read-back proven by
// the run's revisions), and with a put elsewhere in etcd after the first
// transaction (the keys-only read-back).
func BenchmarkResetPhases(b *testing.B) {
	cli, ep := etcdtest.Start(b)
	layout := models.NewLayout("by-dev", "meta")
	const n = 20000
	seedLarge(b, cli, layout, commonpb.WALName_Pulsar, n)
	inst := instance.New(cli, layout, []string{ep})
	wals := []string{"kafka", "pulsar"}
	runs := 0
	for _, c := range []struct {
		name     string
		readBack string
		tune     func(*apply.Options)
	}{
		{"quiet", "proven by revisions", nil},
		{"foreign-write", "keys-only read, 0 values compared", func(o *apply.Options) {
			o.AfterTxn = func(n int) error {
				if n != 1 {
					return nil
				}
				_, err := cli.Put(context.Background(), "elsewhere", "x")
				return err
			}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			cmds := []*framework.Command{apply.Tuned(inst, Build, c.tune)}
			var scan, write, verify float64
			count := 0
			for b.Loop() {
				line := "reset checkpoint --target-wal " + wals[runs%2] + " --run --format json --backup-dir " + b.TempDir()
				out, errs, code, _ := shelltest.Run(b, cmds, line)
				if code != 0 {
					b.Fatal(errs)
				}
				var doc struct {
					Applied struct {
						ScanSeconds   float64 `json:"scan_seconds"`
						WriteSeconds  float64 `json:"write_seconds"`
						VerifySeconds float64 `json:"verify_seconds"`
					} `json:"applied"`
					Verify struct {
						ReadBack string `json:"read_back"`
					} `json:"verify"`
				}
				if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Verify.ReadBack != c.readBack {
					b.Fatalf("%v: read back %q", err, doc.Verify.ReadBack)
				}
				scan += doc.Applied.ScanSeconds
				write += doc.Applied.WriteSeconds
				verify += doc.Applied.VerifySeconds
				runs++
				count++
			}
			b.ReportMetric(scan/float64(count), "scan-s/op")
			b.ReportMetric(write/float64(count), "write-s/op")
			b.ReportMetric(verify/float64(count), "verify-s/op")
		})
	}
}
