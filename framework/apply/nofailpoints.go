//go:build !failpoints

package apply

import clientv3 "go.etcd.io/etcd/client/v3"

// fromEnv is the release build's: no failpoint, the options as they are
// (failpoints.go has the hooks of `-tags failpoints`).
func fromEnv(opt Options) (Options, error) { return opt, nil }

// txnCompares is what a transaction compares: the mod revision of each of
// its keys, then the guards. (The failpoints build can break it on purpose:
// HERON_APPLY_BREAK, for the chaos checker.)
func txnCompares(keys, guards []clientv3.Cmp) []clientv3.Cmp { return append(keys, guards...) }

// openReplay opens the published backup that the write pass replays.
func openReplay(path string) (*BackupReader, error) { return OpenBackup(path) }
