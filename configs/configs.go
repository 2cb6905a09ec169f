// Package configs holds heron's defaults and where its files live. There is
// no config file: the defaults below, overridden by the environment.
package configs

import (
	"os"
	"path/filepath"
	"time"
)

// Defaults of heron (connect's flag defaults repeat these in their tags;
// states' TestConnectDefaultsMatchConfigs checks that they agree).
const (
	// DefaultEtcdPort is etcd's default client port.
	DefaultEtcdPort    = "2379"
	DefaultEtcd        = "127.0.0.1:" + DefaultEtcdPort
	DefaultRootPath    = "by-dev"
	DefaultMetaPath    = "meta"
	DefaultDialTimeout = 10 * time.Second
)

// HomeEnv names the environment variable that moves heron's folder
// (default ~/.heron).
const HomeEnv = "HERON_HOME"

// Defaults are the settings heron runs with.
type Defaults struct {
	Etcd        string
	RootPath    string
	MetaPath    string
	DialTimeout time.Duration
	// Home is heron's folder: $HERON_HOME, else ~/.heron; "" when there is
	// no home directory.
	Home string
	// HistoryFile is the REPL history, Home/history; "" disables history.
	HistoryFile string
}

// Load returns the defaults with the environment applied.
func Load() Defaults {
	d := Defaults{
		Etcd:        DefaultEtcd,
		RootPath:    DefaultRootPath,
		MetaPath:    DefaultMetaPath,
		DialTimeout: DefaultDialTimeout,
	}
	if h := os.Getenv(HomeEnv); h != "" {
		d.Home = h
	} else if home, err := os.UserHomeDir(); err == nil && home != "" {
		d.Home = filepath.Join(home, ".heron")
	}
	if d.Home != "" {
		d.HistoryFile = filepath.Join(d.Home, "history")
	}
	return d
}
