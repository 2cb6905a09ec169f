package check

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/remove"
	"github.com/heron-shell/heron/states/repair"
	"github.com/heron-shell/heron/states/restore"
	"github.com/heron-shell/heron/tests/sampletest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// Each situation check finds and a repair fixes, seeded with real protobuf
// bytes into the sample instance: check FAILs the item and names the
// command; the command, run as check printed it with --run, writes exactly
// the keys its dry run named; check no longer fails the item; restore of
// the repair's backup gives the instance back byte for byte.
func TestCheckNamesTheRepairThatClosesIt(t *testing.T) {
	fresh := sample.TSO(time.Now().Add(-time.Minute), 0)
	for _, sc := range []struct {
		name, item string
		seed       func(ctx context.Context, cli *clientv3.Client, s *shelltest.Seeded, meta func(string) string)
		// run adapts the command check names, when running it as printed
		// would not close the item with Milvus stopped.
		run func(cmd string) string
	}{
		{name: "frozen vchannel", item: "progress", seed: func(ctx context.Context, cli *clientv3.Client, s *shelltest.Seeded, meta func(string) string) {
			// dml_0's consume checkpoint is a minute old; the channel
			// checkpoint of its vchannel is days old (the sample's).
			// The other channel checkpoint is fresh.
			cp := sample.Checkpoint{ID: sample.ID(commonpb.WALName_Kafka, 77), TimeTick: fresh, RecoveryMagic: 1}
			put(t, cli, meta(models.ConsumeCheckpointKey(s.Sample.PChannels[0])), cp.Encode())
			v1 := s.Sample.VChannels[1]
			put(t, cli, meta(models.ChannelCPKey(v1)), sample.Position(v1, sample.ID(commonpb.WALName_Kafka, 78), fresh, commonpb.WALName_Kafka))
		}},
		{name: "missing registration", item: "vchannel-registration", seed: func(ctx context.Context, cli *clientv3.Client, s *shelltest.Seeded, meta func(string) string) {
			v := s.Sample.VChannels[2] // movies: no channel checkpoint
			_, err := cli.Delete(ctx, meta(models.VChannelMetaKey(models.PChannelOf(v), v)))
			require.NoError(t, err)
		}},
		{name: "stuck broadcast task", item: "broadcast-tasks", seed: func(ctx context.Context, cli *clientv3.Client, s *shelltest.Seeded, meta func(string) string) {
			vs := s.Sample.VChannels[:2]
			put(t, cli, meta(models.BroadcastTaskKey(7)), sampletest.AlterWALTask(int32(models.BroadcastPending), commonpb.WALName_Kafka, nil, vs, 2))
		}, run: func(cmd string) string {
			// A reset task stays in flight until a coordinator runs it;
			// with every vchannel acked, removing it closes the item.
			return strings.Replace(cmd, "--mode reset", "--mode remove", 1)
		}},
		{name: "schemas lost from recovery storage", item: "recovery-storage", seed: func(ctx context.Context, cli *clientv3.Client, s *shelltest.Seeded, meta func(string) string) {
			v := s.Sample.VChannels[0]
			_, err := cli.Delete(ctx, meta(models.VChannelSchemaPrefix(models.PChannelOf(v), v)), clientv3.WithPrefix())
			require.NoError(t, err)
		}},
		{name: "stale replicate pchannel", item: "replicate-pchannels", seed: func(ctx context.Context, cli *clientv3.Client, s *shelltest.Seeded, meta func(string) string) {
			put(t, cli, meta(models.ReplicateConfiguration), sampletest.ReplicateConfiguration("by-dev", "standby"))
			p := s.Sample.PChannels[0]
			put(t, cli, meta(models.ReplicatingPChannelKey("old-dr", p)), sampletest.ReplicatingPChannel(p, "old-dr-rootcoord-dml_0", "old-dr"))
		}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			ctx := context.Background()
			s := shelltest.Start(t, commonpb.WALName_Kafka)
			sc.seed(ctx, s.Cli, s, s.Inst.Layout.Meta)
			dir := t.TempDir()
			cmds := append(append(append(Commands(s.Inst), repair.Commands(s.Inst)...), remove.Commands(s.Inst)...), restore.Commands(s.Inst)...)
			checkItem := func() Item {
				line := "check --format json"
				if sc.item == "broadcast-tasks" {
					line = "check --format json --watch --interval 200ms --for 400ms --stuck-after 100ms"
				}
				out, errs, _, _ := shelltest.Run(t, cmds, line)
				var r Result
				require.NoError(t, json.Unmarshal([]byte(out), &r), errs)
				for _, it := range r.Items {
					if it.Name == sc.item {
						return it
					}
				}
				t.Fatalf("no item %s in %s", sc.item, out)
				return Item{}
			}
			it := checkItem()
			require.Equal(t, Fail, it.Verdict, "%+v", it)
			require.Len(t, it.Commands, 1, "%+v", it)
			cmd := it.Commands[0]
			if sc.run != nil {
				cmd = sc.run(cmd)
			}
			before := shelltest.Dump(t, s.Cli)

			out, errs, code, _ := shelltest.Run(t, cmds, cmd+" --backup-dir "+dir+" --format json")
			require.Equal(t, 0, code, "%s\n%s%s", cmd, out, errs)
			var plan struct {
				Changes []struct {
					Key string `json:"key"`
				} `json:"changes"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &plan), out)
			var planned []string
			for _, c := range plan.Changes {
				planned = append(planned, c.Key)
			}
			slices.Sort(planned)
			require.NotEmpty(t, planned)
			require.Empty(t, shelltest.DiffKeys(before, shelltest.Dump(t, s.Cli)), "the dry run wrote")

			out, errs, code, _ = shelltest.Run(t, cmds, cmd+" --backup-dir "+dir+" --run")
			require.Equal(t, 0, code, "%s --run\n%s%s", cmd, out, errs)
			require.Equal(t, planned, shelltest.DiffKeys(before, shelltest.Dump(t, s.Cli)), "--run wrote other keys than the plan named")
			if it := checkItem(); it.Verdict == Fail {
				t.Fatalf("check still fails after %s: %+v", cmd, it)
			}

			backups, err := filepath.Glob(filepath.Join(dir, "heron-backup-*.jsonl"))
			require.NoError(t, err)
			require.Len(t, backups, 1)
			out, errs, code, _ = shelltest.Run(t, cmds, "restore --file "+backups[0]+" --backup-dir "+t.TempDir()+" --run")
			require.Equal(t, 0, code, "restore\n%s%s", out, errs)
			require.Empty(t, shelltest.DiffKeys(before, shelltest.Dump(t, s.Cli)), "restore left differences")
		})
	}
}

func put(t *testing.T, cli *clientv3.Client, key string, value []byte) {
	t.Helper()
	_, err := cli.Put(context.Background(), key, string(value))
	require.NoError(t, err)
}
