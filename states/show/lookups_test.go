package show

import (
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
)

// Issue 16 §9: filters of show collections and show segment, an absent
// --segment is an error, footers follow the filters, show checkpoint
// --pchannels.
func TestLookups(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	res, _ := runJSON[CollectionsResult](e, "show collections --name books")
	if len(res.Collections) != 1 || res.Collections[0].ID != 100 {
		t.Errorf("--name books: %+v", res.Collections)
	}
	res, _ = runJSON[CollectionsResult](e, "show collections --dbid 1 --state collectioncreated")
	if len(res.Collections) != 2 || res.Tombstones != 0 {
		t.Errorf("--dbid 1 --state CollectionCreated: %+v", res)
	}
	res, _ = runJSON[CollectionsResult](e, "show collections --state dropped-tombstone")
	if len(res.Collections) != 1 || res.Tombstones != 1 {
		t.Errorf("--state dropped-tombstone: %+v", res)
	}
	if _, errs, code, _ := e.run("show collections --id 999"); code == 0 || !strings.Contains(errs, "no collection 999") {
		t.Errorf("absent --id: exit %d %s", code, errs)
	}
	table, _ := e.mustRun("show collection --id 100")
	if !strings.Contains(table, "dml_0,dml_1") || !strings.Contains(table, "1 collection key(s) matching the filters, 0 tombstone(s)") {
		t.Errorf("show collection --id 100:\n%s", table)
	}

	segs, _ := runJSON[SegmentResult](e, "show segment --vchannel by-dev-rootcoord-dml_0_100v0 --level L1 --partition 101")
	if segs.Total != 2 {
		t.Errorf("--vchannel --level --partition: %+v", segs)
	}
	if segs, _ = runJSON[SegmentResult](e, "show segment --level L0"); segs.Total != 0 || len(segs.Counts) != 0 {
		t.Errorf("--level L0 counts what it filters out: %+v", segs)
	}
	if _, errs, code, _ := e.run("show segment --segment 77"); code == 0 || !strings.Contains(errs, "no segment 77") {
		t.Errorf("absent --segment: exit %d %s", code, errs)
	}

	cp, _ := e.mustRun("show checkpoint --pchannels")
	if strings.Contains(cp, "VCHANNEL") || !strings.Contains(cp, "3 pchannel(s): 3 on pulsar; none split; vchannels not read (--pchannels)") {
		t.Errorf("--pchannels:\n%s", cp)
	}
}
