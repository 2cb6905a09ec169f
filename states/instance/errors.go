package instance

import (
	"errors"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
)

// IsPermissionDenied reports whether err is etcd refusing a read to the
// connected user (a user granted only the root path's prefix cannot read
// keys outside it, such as woodpecker's legacy top-level prefix).
func IsPermissionDenied(err error) bool {
	return errors.Is(err, rpctypes.ErrPermissionDenied)
}
