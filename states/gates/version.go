package gates

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// Versions are the Milvus releases of an instance: from --milvus-version,
// else from its sessions' Version at the read revision. A stopped instance
// may have no session left (they expire with their lease): then Known is
// false and the target checks say so.
type Versions struct {
	Releases []models.MilvusVersion
	// From says where they came from: "--milvus-version" or "sessions".
	From  string
	Known bool
}

// InstanceVersions reads the instance's Milvus releases at rev; flag
// (--milvus-version, already validated) wins over the sessions. Sessions
// whose value names no parsable version are skipped.
func InstanceVersions(ctx context.Context, inst *instance.Instance, rev int64, flag string) (Versions, error) {
	if flag != "" {
		v, err := models.ParseMilvusVersion(flag)
		if err != nil {
			return Versions{}, fmt.Errorf("--milvus-version: %w", err)
		}
		return Versions{Releases: []models.MilvusVersion{v}, From: "--milvus-version", Known: true}, nil
	}
	out := Versions{From: "sessions"}
	_, err := inst.Walk(ctx, rev, []string{models.SessionPrefix}, func(e instance.Entry) error {
		if e.Rel == models.SessionIDKey {
			return nil
		}
		s, err := models.DecodeSession(e.Rel, e.Value, e.Lease)
		if err != nil || s.Version == "" {
			return nil
		}
		v, err := models.ParseMilvusVersion(s.Version)
		if err != nil {
			return nil
		}
		if !slices.ContainsFunc(out.Releases, func(r models.MilvusVersion) bool { return r.Compare(v) == 0 }) {
			out.Releases = append(out.Releases, v)
		}
		return nil
	})
	if err != nil {
		return Versions{}, err
	}
	slices.SortFunc(out.Releases, models.MilvusVersion.Compare)
	out.Known = len(out.Releases) > 0
	return out, nil
}

// Describe names the releases and their source: "2.6.3 (sessions)", or
// "unknown (no session names a version: pass --milvus-version)".
func (v Versions) Describe() string {
	if !v.Known {
		return "unknown (no session names a version: pass --milvus-version)"
	}
	var names []string
	for _, r := range v.Releases {
		names = append(names, r.String())
	}
	return strings.Join(names, ", ") + " (" + v.From + ")"
}

// PulsarIgnoresNamespace reports whether a release of the instance writes
// its topics to public/default whatever pulsar.tenant/namespace say, or the
// release is unknown (it may be one).
func (v Versions) PulsarIgnoresNamespace() bool {
	return !v.Known || slices.ContainsFunc(v.Releases, models.MilvusVersion.PulsarIgnoresNamespace)
}

// Line3 reports that every known release is 3.x or later.
func (v Versions) Line3() bool {
	return v.Known && !slices.ContainsFunc(v.Releases, func(r models.MilvusVersion) bool { return !r.Line3() })
}
