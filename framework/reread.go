package framework

import (
	"errors"
	"fmt"
	"io"
)

// staleRead is implemented by errors of a plan read at a revision etcd no
// longer has (its compactor ran past it): StaleRead is true when nothing
// was written, so building the plan again at the current revision is safe.
type staleRead interface{ StaleRead() bool }

// IsStaleRead reports whether err (its first error that can tell) is a
// stale read with nothing written.
func IsStaleRead(err error) bool {
	var s staleRead
	return errors.As(err, &s) && s.StaleRead()
}

// RereadOnce runs attempt (building a write command's plan and previewing or
// applying it), and once more when it failed on a stale read
// with nothing written, telling stderr why. A second stale read fails the
// command, saying that nothing was written.
func RereadOnce(stderr io.Writer, attempt func() (Result, error)) (Result, error) {
	res, err := attempt()
	if !IsStaleRead(err) {
		return res, err
	}
	fmt.Fprintf(orDiscard(stderr), "note: %v; nothing was written: reading the plan again at the current revision\n", err)
	res, err = attempt()
	if IsStaleRead(err) {
		return res, fmt.Errorf("%w; nothing was written (the plan was read twice; etcd compacts faster than heron reads: retry, or pause the compactor)", err)
	}
	return res, err
}
