package show

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// SessionParam is `show session`.
type SessionParam struct {
	framework.ParamBase `use:"show session" desc:"Milvus components registered under session/ and whether they are alive (hold an etcd lease)" example:"show session --format json" alias:"sessions"`
	Wide
	framework.Output
}

// SessionRow is one key under session/. Error: its value does not decode;
// the key and its lease are still shown (a lease means a live component).
// TTLSeconds: the seconds its lease has left (alive rows only), how long
// the session outlives a stopped component.
type SessionRow struct {
	models.Session
	TTLSeconds *int64 `json:"ttl_seconds,omitempty"`
	Error      string `json:"error,omitempty"`
	cause      string // the decode error, for the table (the row names the key)
}

// SessionResult is the output of `show session`.
type SessionResult struct {
	Sessions []SessionRow `json:"sessions"`
	Alive    int          `json:"alive"`
	Errors   int          `json:"errors"`
	wide     bool
}

func runSession(ctx context.Context, inst *instance.Instance, p *SessionParam, out framework.IO) (framework.Result, error) {
	res, err := Sessions(ctx, inst, out.Stderr)
	if err != nil {
		return nil, err
	}
	res.wide = p.Wide.Wide
	return res, nil
}

// Sessions lists every key under session/ except the server-id counter, in
// natural key order; a value that does not decode is a row with its error.
func Sessions(ctx context.Context, inst *instance.Instance, warn io.Writer) (*SessionResult, error) {
	if warn == nil {
		warn = io.Discard
	}
	res := &SessionResult{Sessions: []SessionRow{}}
	_, err := inst.Walk(ctx, 0, []string{models.SessionPrefix}, func(e instance.Entry) error {
		if e.Rel == models.SessionIDKey {
			return nil
		}
		row := SessionRow{}
		if s, err := models.DecodeSession(e.Rel, e.Value, e.Lease); err != nil {
			row.Session = models.Session{Key: e.Rel, Lease: e.Lease, Alive: e.Lease != 0}
			row.Error = err.Error() // names the key
			row.cause = err.Error()
			if inner := errors.Unwrap(err); inner != nil {
				row.cause = "not JSON: " + inner.Error()
			}
			res.Errors++
			fmt.Fprintf(warn, "warning: session %s\n", framework.EscapeText(row.Error))
		} else {
			row.Session = *s
		}
		if row.Alive {
			res.Alive++
		}
		res.Sessions = append(res.Sessions, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var leases []int64
	for _, s := range res.Sessions {
		leases = append(leases, s.Lease)
	}
	ttls, err := inst.LeaseTTLs(ctx, leases)
	if err != nil {
		return nil, err
	}
	for i := range res.Sessions {
		if t, ok := ttls[res.Sessions[i].Lease]; ok {
			res.Sessions[i].TTLSeconds = &t
		}
	}
	slices.SortStableFunc(res.Sessions, func(a, b SessionRow) int { return naturalCompare(a.Key, b.Key) })
	if res.Errors > 0 {
		fmt.Fprintf(warn, "warning: %d session key(s) do not decode: listed with their error\n", res.Errors)
	}
	return res, nil
}

func leaseText(l int64) string {
	if l == 0 {
		return ""
	}
	return framework.LeaseID(l)
}

// ttlText is a lease's seconds left, for the table and lines ("" without a lease).
func ttlText(t *int64) string {
	if t == nil {
		return ""
	}
	return fmt.Sprintf("%ds", *t)
}

// JSON implements framework.Result.
func (r *SessionResult) JSON() any { return r }

// Table implements framework.Result.
func (r *SessionResult) Table(w io.Writer) error {
	header := []string{"KEY", "ROLE", "SERVER ID", "ADDRESS", "VERSION", "ALIVE", "LEASE", "TTL"}
	if r.Errors > 0 {
		header = append(header, "ERROR")
	}
	t := newTable(w, header...).fit(r.wide, 0, 3, 8)
	for _, s := range r.Sessions {
		cells := []string{s.Key, s.Role, i64(s.ServerID), s.Address, s.Version, yesNo(s.Alive), leaseText(s.Lease), ttlText(s.TTLSeconds)}
		if r.Errors > 0 {
			cells = append(cells, s.cause)
		}
		if s.Error != "" {
			cells[2] = ""
		}
		t.row(cells...)
	}
	if err := t.flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d session(s), %d alive\n", len(r.Sessions), r.Alive)
	if err == nil && r.Errors > 0 {
		_, err = fmt.Fprintf(w, "%d key(s) do not decode (see ERROR)\n", r.Errors)
	}
	return err
}

// Lines implements framework.Result: one line per session, then a summary
// line (there even when no session is registered).
func (r *SessionResult) Lines(w io.Writer) error {
	for _, s := range r.Sessions {
		if err := line(w, "session", "key", s.Key, "role", s.Role, "server_id", i64(s.ServerID), "address", s.Address,
			"alive", boolS(s.Alive), "lease", leaseText(s.Lease), "ttl_seconds", strings.TrimSuffix(ttlText(s.TTLSeconds), "s"), "error", s.Error); err != nil {
			return err
		}
	}
	return line(w, "summary", "sessions", itoa(len(r.Sessions)), "alive", itoa(r.Alive), "errors", itoa(r.Errors))
}
