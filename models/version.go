package models

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// MilvusVersion is a Milvus release as a session names it: Milvus writes its
// semver (blang/semver, e.g. "2.6.3" or "2.6.0-rc1") as the session value's
// Version (internal/util/sessionutil Session.Version).
type MilvusVersion struct {
	Major, Minor, Patch int
	// Raw is the text it was read from.
	Raw string
}

// ParseMilvusVersion reads "MAJOR.MINOR.PATCH", with an optional leading
// "v" and any "-pre" or "+build" suffix.
func ParseMilvusVersion(s string) (MilvusVersion, error) {
	v := MilvusVersion{Raw: s}
	core := strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexAny(core, "-+"); i >= 0 {
		core = core[:i]
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return v, fmt.Errorf("Milvus version %q: want MAJOR.MINOR.PATCH, e.g. 2.6.3", s)
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 {
			return v, fmt.Errorf("Milvus version %q: %q is not a number", s, p)
		}
		n[i] = x
	}
	v.Major, v.Minor, v.Patch = n[0], n[1], n[2]
	return v, nil
}

// Compare orders releases by major, minor and patch.
func (v MilvusVersion) Compare(o MilvusVersion) int {
	return cmp.Or(cmp.Compare(v.Major, o.Major), cmp.Compare(v.Minor, o.Minor), cmp.Compare(v.Patch, o.Patch))
}

func (v MilvusVersion) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// PulsarIgnoresNamespace reports a release that writes every Pulsar topic
// to public/default whatever pulsar.tenant and pulsar.namespace say: 2.6.0
// to 2.6.8 (milvus-io/milvus#46748 "streamingnode always use
// public/default", seen on 2.6.6 and 2.6.8; fixed by #46752 and its 2.6
// backport #46759, merged 2026-01-06; 2.6.23's pulsar builder passes both,
// streaming/walimpls/impls/pulsar/builder.go:66). 2.6.9 as the first fixed
// release is taken from the timing, not from release notes.
func (v MilvusVersion) PulsarIgnoresNamespace() bool {
	return v.Major == 2 && v.Minor == 6 && v.Patch <= 8
}

// Line3 reports Milvus 3.x or later (built from master).
func (v MilvusVersion) Line3() bool { return v.Major >= 3 }
