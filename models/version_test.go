package models

import "testing"

func TestMilvusVersion(t *testing.T) {
	for _, c := range []struct {
		in             string
		want           string
		ignores, line3 bool
	}{
		{"2.6.0", "2.6.0", true, false},
		{"v2.6.8-rc2", "2.6.8", true, false},
		{"2.6.9", "2.6.9", false, false},
		{"2.6.23+a1b2c3", "2.6.23", false, false},
		{"2.5.14", "2.5.14", false, false},
		{"3.0.0", "3.0.0", false, true},
	} {
		v, err := ParseMilvusVersion(c.in)
		if err != nil || v.String() != c.want || v.PulsarIgnoresNamespace() != c.ignores || v.Line3() != c.line3 {
			t.Errorf("%s: %v %v ignores=%v line3=%v", c.in, v, err, v.PulsarIgnoresNamespace(), v.Line3())
		}
	}
	for _, bad := range []string{"", "2.6", "2.x.1", "latest", "2.6.-1"} {
		if _, err := ParseMilvusVersion(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	a, _ := ParseMilvusVersion("2.6.10")
	b, _ := ParseMilvusVersion("2.6.9")
	if a.Compare(b) <= 0 {
		t.Error("2.6.10 sorts before 2.6.9")
	}
}
