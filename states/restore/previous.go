package restore

import (
	"slices"
	"strings"

	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
)

// previousWALs collects, from the entries of a backup, the WALs its consume
// checkpoints name: the WAL the instance used before the backed-up write,
// which the restore puts back.
type previousWALs struct {
	layout models.Layout
	seen   map[string]bool
}

func newPreviousWALs(h apply.Header) *previousWALs {
	metaPath := strings.TrimSuffix(strings.TrimPrefix(h.MetaRoot, h.RootPath+"/"), "/")
	if metaPath == "" || h.MetaRoot == "" {
		metaPath = "meta"
	}
	return &previousWALs{layout: models.NewLayout(h.RootPath, metaPath), seen: map[string]bool{}}
}

// wants reports whether add needs the value of key: a key under the
// streamingnode's WAL prefix, where consume checkpoints are.
func (p *previousWALs) wants(key string) bool {
	rel, ok := p.layout.Rel(key)
	return ok && strings.HasPrefix(rel, models.WALPrefix)
}

// add notes the WAL of e when it is a consume checkpoint that existed, and
// returns the kind of its key (KindOther outside the meta root).
func (p *previousWALs) add(e apply.Entry) models.Kind {
	rel, ok := p.layout.Rel(e.Key)
	if !ok {
		return models.KindOther
	}
	kind := models.Classify(rel).Kind
	if e.Absent || kind != models.KindConsumeCheckpoint {
		return kind
	}
	if cp, err := models.DecodeWALCheckpoint(e.Value); err == nil && cp.HasMessageID {
		p.seen[msgid.Name(cp.WAL)] = true
	}
	return kind
}

// names are the WALs seen, sorted ("" when none).
func (p *previousWALs) names() string {
	var out []string
	for n := range p.seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
