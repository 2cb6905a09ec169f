package gates

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// CacheName is the name of the gate of a repair's cache.
func CacheName(c models.Cache) string { return "no live component caching " + c.What }

// CachedBy is a repair's gate "no live component caching WHAT": no session
// of a role that holds the keys in memory (models.Cache) has a lease at rev.
// It names the live ones and what they do with the keys, beside the
// instance gate that refuses every live component (the kit's guard
// compares every session in every transaction): the operator learns which
// of them must be restarted for the repair to take effect.
func CachedBy(ctx context.Context, inst *instance.Instance, rev int64, c models.Cache) (framework.Gate, error) {
	var live []string
	_, err := inst.Walk(ctx, rev, []string{models.SessionPrefix}, func(e instance.Entry) error {
		if e.Rel == models.SessionIDKey || e.Lease == 0 {
			return nil
		}
		if role := models.SessionRole(e.Rel, e.Value); slices.Contains(c.Roles, role) {
			live = append(live, fmt.Sprintf("%s (%s, lease %s)", e.Rel, role, framework.LeaseID(e.Lease)))
		}
		return nil
	})
	if err != nil {
		return framework.Gate{}, err
	}
	g := framework.Gate{Name: CacheName(c), OK: len(live) == 0, Count: int64(len(live)),
		Detail: fmt.Sprintf("no %s session is live (%s: %s)", strings.Join(c.Roles, ", "), c.Keys, c.How)}
	if g.OK {
		return g, nil
	}
	g.Keys = live[:min(len(live), MaxKeys)]
	g.Detail = fmt.Sprintf("%s: %s: a repair written under them is overwritten or never read; stop them, and restart them after the repair",
		c.Keys, c.How)
	g.Fix = StopSteps()
	return g, nil
}
