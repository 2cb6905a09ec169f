package configs

import (
	"path/filepath"
	"testing"
	"time"
)

func TestLoad(t *testing.T) {
	tests := []struct {
		name        string
		heronHome   string
		home        string
		wantHome    string
		wantHistory string
	}{
		{"default home", "", "/home/op", "/home/op/.heron", "/home/op/.heron/history"},
		{"HERON_HOME wins", "/srv/heron", "/home/op", "/srv/heron", "/srv/heron/history"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", tt.home)
			t.Setenv(HomeEnv, tt.heronHome)
			d := Load()
			if d.Home != filepath.FromSlash(tt.wantHome) || d.HistoryFile != filepath.FromSlash(tt.wantHistory) {
				t.Fatalf("Home=%q HistoryFile=%q, want %q %q", d.Home, d.HistoryFile, tt.wantHome, tt.wantHistory)
			}
			if d.RootPath != "by-dev" || d.MetaPath != "meta" || d.Etcd != "127.0.0.1:2379" ||
				d.DialTimeout != 10*time.Second {
				t.Fatalf("defaults: %+v", d)
			}
		})
	}
}

func TestLoadNoHome(t *testing.T) {
	t.Setenv("HOME", "")
	t.Setenv(HomeEnv, "")
	d := Load()
	if d.HistoryFile != "" || d.Home != "" {
		t.Fatalf("history without home: %+v", d)
	}
}
