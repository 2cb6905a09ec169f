package reset

import (
	"encoding/json"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// BenchmarkResetPhases is BenchmarkReset's run on 20,000 segments with each
// phase of the run document reported beside the whole (verify-s/op is the
// read-back and the re-plan side by side).
func BenchmarkResetPhases(b *testing.B) {
	cli, ep := etcdtest.Start(b)
	layout := models.NewLayout("by-dev", "meta")
	const n = 20000
	seedLarge(b, cli, layout, commonpb.WALName_Pulsar, n)
	inst := instance.New(cli, layout, []string{ep})
	wals := []string{"kafka", "pulsar"}
	var scan, write, verify float64
	runs := 0
	for b.Loop() {
		line := "reset checkpoint --target-wal " + wals[runs%2] + " --run --format json --backup-dir " + b.TempDir()
		out, errs, code, _ := shelltest.Run(b, Commands(inst), line)
		if code != 0 {
			b.Fatal(errs)
		}
		var doc struct {
			Applied struct {
				ScanSeconds   float64 `json:"scan_seconds"`
				WriteSeconds  float64 `json:"write_seconds"`
				VerifySeconds float64 `json:"verify_seconds"`
			} `json:"applied"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			b.Fatal(err)
		}
		scan += doc.Applied.ScanSeconds
		write += doc.Applied.WriteSeconds
		verify += doc.Applied.VerifySeconds
		runs++
	}
	b.ReportMetric(scan/float64(runs), "scan-s/op")
	b.ReportMetric(write/float64(runs), "write-s/op")
	b.ReportMetric(verify/float64(runs), "verify-s/op")
}
