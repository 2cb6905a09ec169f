package instance

import (
	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
)

// SessionGuardName is the name of the live-component gate and of the guard
// the write kit reads while it writes.
const SessionGuardName = "no live Milvus component"

// SessionGuard is the live-component gate as the write kit watches it: a
// session key with a lease (other than the server-id counter) stops the
// run, named.
func SessionGuard(l models.Layout) framework.Guard {
	return framework.Guard{Name: SessionGuardName, Prefix: l.Meta(models.SessionPrefix), Except: []string{l.Meta(models.SessionIDKey)}, Role: models.SessionRole}
}

// Guards are what the write kit reads and every transaction compares, on
// every run of every write command (apply.Guarded): Milvus's sessions,
// under the instance's own meta root (a user limited to the root may
// compare them). A command cannot leave them out: the kit asks the
// instance, not the plan.
func (in *Instance) Guards() []framework.Guard { return []framework.Guard{SessionGuard(in.Layout)} }
