package gates

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/targetcheck"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// pulsarStats answers internalStats for the topics given (path under
// /admin/v2/persistent/ -> numberOfEntries) in Pulsar's shape, 404 for
// others, and {"partitions":0} for every partitioned-topic metadata request.
func pulsarStats(t *testing.T, topics map[string]string) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rel := strings.TrimPrefix(r.URL.Path, "/admin/v2/persistent/")
		if strings.HasSuffix(rel, "/partitions") {
			_, _ = w.Write([]byte(`{"partitions":0,"deleted":false}`))
			return
		}
		n, ok := topics[strings.TrimSuffix(rel, "/internalStats")]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"reason":"Topic not found"}`))
			return
		}
		_, _ = w.Write([]byte(`{"entriesAddedCounter":` + n + `,"numberOfEntries":` + n + `,"totalSize":198,"currentLedgerEntries":` + n + `,"lastConfirmedEntry":"12:2","state":"LedgerOpened","ledgers":[{"ledgerId":12,"entries":0,"size":0,"offloaded":false,"underReplicated":false}],"cursors":{}}`))
	}))
	t.Cleanup(s.Close)
	return s
}

// milvusSession is a session value as Milvus 2.6 writes it
// (sessionutil.Session marshalled: Version is its semver).
func milvusSession(version string) string {
	return `{"ServerID":5,"ServerName":"streamingnode","Address":"10.0.0.5:22222","Exclusive":false,"Stopping":false,"TriggerKill":true,"Version":"` + version + `","IndexEngineVersion":{},"ScalarIndexEngineVersion":{},"IndexNonEncoding":true}`
}

// Issue 28 §1: Milvus 2.6.0-2.6.8 write to public/default whatever
// pulsar.tenant/namespace say. With --pulsar-tenant tn --pulsar-namespace ns
// (what milvus.yaml says), old data in public/default must refuse the
// reset, saying why; 2.6.9 and later are checked under tn/ns only.
func TestPulsarTenantIgnoredByEarly26(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	ctx := context.Background()
	layout := models.NewLayout("by-dev", "meta")
	inst := instance.New(cli, layout, []string{ep})
	const pc = "by-dev-rootcoord-dml_0"
	admin := pulsarStats(t, map[string]string{"public/default/" + pc: "3"})
	f := &targetcheck.Flags{PulsarFlags: targetcheck.PulsarFlags{PulsarAdmin: admin.URL, PulsarTenant: "tn", PulsarNamespace: "ns"}}
	gate := func(f *targetcheck.Flags) Target {
		t.Helper()
		g, err := TargetGate(ctx, inst, 0, "pulsar", f, []string{pc}, false)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	put := func(version string) {
		if _, err := cli.Put(ctx, layout.Meta(models.SessionPrefix+"streamingnode-5"), milvusSession(version)); err != nil {
			t.Fatal(err)
		}
	}

	put("2.6.3")
	g := gate(f)
	if g.Gate.OK || !strings.Contains(g.Gate.Detail, "persistent://public/default/"+pc+": not empty (3 entries)") ||
		!strings.Contains(g.Gate.Detail, "milvus-io/milvus#46748") || !strings.Contains(g.Gate.Detail, "2.6.3 (sessions)") {
		t.Fatalf("2.6.3 with old data in public/default: %+v", g.Gate)
	}

	put("2.6.9")
	if g := gate(f); !g.Gate.OK || g.Topics[0].PublicDefault != nil || strings.Contains(g.Gate.Detail, "46748") {
		t.Fatalf("2.6.9 honours pulsar.tenant: public/default is not Milvus's: %+v", g.Gate)
	}

	// A stopped instance whose sessions expired: the release is unknown,
	// so both are checked and the detail says why.
	if _, err := cli.Delete(ctx, layout.Meta(models.SessionPrefix+"streamingnode-5")); err != nil {
		t.Fatal(err)
	}
	if g := gate(f); g.Gate.OK || !strings.Contains(g.Gate.Detail, "unknown (no session names a version: pass --milvus-version)") {
		t.Fatalf("unknown release: %+v", g.Gate)
	}
	withVersion := *f
	withVersion.MilvusVersion = "2.6.12"
	if g := gate(&withVersion); !g.Gate.OK {
		t.Fatalf("--milvus-version 2.6.12: %+v", g.Gate)
	}
	withVersion.MilvusVersion = "v2.6.8"
	if g := gate(&withVersion); g.Gate.OK || !strings.Contains(g.Gate.Detail, "2.6.8 (--milvus-version)") {
		t.Fatalf("--milvus-version v2.6.8: %+v", g.Gate)
	}

	// Unchecked, the reminder names the public/default topics too.
	unchecked, err := TargetGate(ctx, inst, 0, "pulsar", &targetcheck.Flags{PulsarFlags: targetcheck.PulsarFlags{PulsarTenant: "tn", PulsarNamespace: "ns"}, MilvusVersion: "2.6.4"}, []string{pc}, false)
	if err != nil || !strings.Contains(unchecked.Reminder, "persistent://tn/ns/"+pc) || !strings.Contains(unchecked.Reminder, "the same topics under persistent://public/default/ must be absent or empty too") {
		t.Fatalf("unchecked: %v %q", err, unchecked.Reminder)
	}
	unchecked, _ = TargetGate(ctx, inst, 0, "pulsar", &targetcheck.Flags{PulsarFlags: targetcheck.PulsarFlags{PulsarTenant: "tn", PulsarNamespace: "ns"}, MilvusVersion: "2.6.10"}, []string{pc}, false)
	if strings.Contains(unchecked.Reminder, "public/default") {
		t.Fatalf("unchecked on 2.6.10: %q", unchecked.Reminder)
	}

	// public/default itself is checked once.
	put("2.6.3")
	pd := &targetcheck.Flags{PulsarFlags: targetcheck.PulsarFlags{PulsarAdmin: admin.URL}}
	if g := gate(pd); g.Gate.OK || g.Topics[0].PublicDefault != nil {
		t.Fatalf("public/default: %+v", g.Gate)
	}
}
