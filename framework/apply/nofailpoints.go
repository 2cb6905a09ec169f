//go:build !failpoints

package apply

// fromEnv is the release build's: no failpoint, the options as they are
// (failpoints.go has the hooks of `-tags failpoints`).
func fromEnv(opt Options) (Options, error) { return opt, nil }
