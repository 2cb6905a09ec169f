package models

import "testing"

func TestSessionRole(t *testing.T) {
	for _, tc := range []struct {
		key, value, want string
	}{
		{"by-dev/meta/session/datacoord", `{"ServerID":3,"ServerName":"datacoord"}`, "datacoord"},
		{"by-dev/meta/session/querynode-7", `{"ServerID":7,"ServerName":"querynode"}`, "querynode"},
		{"by-dev/meta/session/querynode-7", `{"ServerID":7}`, "querynode"},
		{"session/streamingnode-12", `not json`, "streamingnode"},
		{"by-dev/meta/session/rootcoord", ``, "rootcoord"},
	} {
		if got := SessionRole(tc.key, []byte(tc.value)); got != tc.want {
			t.Errorf("SessionRole(%s, %s) = %q, want %q", tc.key, tc.value, got, tc.want)
		}
	}
}
