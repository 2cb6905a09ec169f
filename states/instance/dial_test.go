package instance

import (
	"strings"
	"testing"
)

func TestCheckEndpoint(t *testing.T) {
	tests := []struct{ ep, err string }{
		{"127.0.0.1:2379", ""},
		{"etcd-0.etcd:2379", ""},
		{"[::1]:2379", ""},
		{"http://127.0.0.1:2379", ""},
		{"https://etcd:2379", ""},
		{"unix:///run/etcd.sock", ""},
		{"127.0.0.1", "etcd address 127.0.0.1: missing :PORT (etcd's default client port is 2379)"},
		{"etcd", "etcd address etcd: missing :PORT"},
		{"https://etcd", "etcd address https://etcd: missing :PORT"},
		{"127.0.0.1:", "missing :PORT"},
		{"::1", "is not HOST:PORT"},
		{"ftp://etcd:21", `scheme "ftp" is not http, https or unix`},
	}
	for _, tt := range tests {
		err := CheckEndpoint(tt.ep)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v", tt.ep, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: got %v, want %q", tt.ep, err, tt.err)
		}
	}
}
