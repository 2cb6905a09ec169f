package instance

import (
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
)

// CompactedError is a read pinned to a revision etcd compacted away while
// heron read at it (etcd's compactor ran while other writers moved it on):
// the snapshot the plan was read at is gone.
type CompactedError struct {
	Revision int64
	Err      error
}

func (e *CompactedError) Error() string {
	return fmt.Sprintf("etcd compacted its history past revision %d while heron read at it (etcd: %v)", e.Revision, e.Err)
}

func (e *CompactedError) Unwrap() error { return e.Err }

// StaleRead is true: what was read at the revision must be read again at a
// new one (the write kit builds the plan again once when nothing was
// written).
func (e *CompactedError) StaleRead() bool { return true }

// IsCompacted reports whether err is a read at a compacted revision.
func IsCompacted(err error) bool { return errors.Is(err, rpctypes.ErrCompacted) }

// compacted wraps err of a read pinned to rev in a *CompactedError when
// etcd compacted rev away.
func compacted(rev int64, err error) error {
	if rev > 0 && IsCompacted(err) {
		return &CompactedError{Revision: rev, Err: err}
	}
	return err
}
