package show

import (
	"context"
	"fmt"
	"io"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// SessionParam is `show session`.
type SessionParam struct {
	framework.ParamBase `use:"show session" desc:"Milvus components registered under session/ and whether they are alive (hold an etcd lease)"`
	framework.Output
}

// SessionResult is the output of `show session`.
type SessionResult struct {
	Sessions []*models.Session `json:"sessions"`
	Alive    int               `json:"alive"`
}

func runSession(ctx context.Context, inst *instance.Instance, _ *SessionParam) (framework.Result, error) {
	return result(Sessions(ctx, inst))
}

// Sessions lists every key under session/ except the server-id counter.
func Sessions(ctx context.Context, inst *instance.Instance) (*SessionResult, error) {
	res := &SessionResult{Sessions: []*models.Session{}}
	_, err := inst.Walk(ctx, 0, []string{models.SessionPrefix}, func(e instance.Entry) error {
		if e.Rel == models.SessionIDKey {
			return nil
		}
		s, err := models.DecodeSession(e.Rel, e.Value, e.Lease)
		if err != nil {
			return fmt.Errorf("key %s: %w", e.Rel, err)
		}
		if s.Alive {
			res.Alive++
		}
		res.Sessions = append(res.Sessions, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func leaseText(l int64) string {
	if l == 0 {
		return ""
	}
	return fmt.Sprintf("%x", l)
}

// JSON implements framework.Result.
func (r *SessionResult) JSON() any { return r }

// Table implements framework.Result.
func (r *SessionResult) Table(w io.Writer) error {
	t := newTable(w, "KEY", "ROLE", "SERVER ID", "ADDRESS", "VERSION", "ALIVE", "LEASE")
	for _, s := range r.Sessions {
		t.row(s.Key, s.Role, i64(s.ServerID), s.Address, s.Version, yesNo(s.Alive), leaseText(s.Lease))
	}
	if err := t.flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d session(s), %d alive\n", len(r.Sessions), r.Alive)
	return err
}

// Lines implements framework.Result.
func (r *SessionResult) Lines(w io.Writer) error {
	for _, s := range r.Sessions {
		if err := line(w, "session", "key", s.Key, "role", s.Role, "server_id", i64(s.ServerID), "address", s.Address,
			"alive", boolS(s.Alive), "lease", leaseText(s.Lease)); err != nil {
			return err
		}
	}
	return nil
}
