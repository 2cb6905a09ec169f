package models_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
)

func TestWoodpeckerPrefixes(t *testing.T) {
	l := models.NewLayout("by-dev", "meta")
	// path.Join(etcd.rootPath, woodpecker.meta.prefix) (meta/metadata_etcd.go
	// buildConfiguredMetadataPrefix @v0.1.35).
	assert.Equal(t, "by-dev/woodpecker", l.WoodpeckerConfiguredPrefix(""))
	assert.Equal(t, "by-dev/wpmeta", l.WoodpeckerConfiguredPrefix("wpmeta"))
	assert.Equal(t, "by-dev/a/b", l.WoodpeckerConfiguredPrefix("/a/b/"))
	assert.Equal(t, "woodpecker", l.WoodpeckerConfiguredPrefix(".."), "NewKeyBuilder falls back to the legacy prefix on \".\"")
	assert.Equal(t, "by-dev/wp", l.WoodpeckerHeronWPPrefix())
	assert.Equal(t, []string{"woodpecker/instance", "woodpecker/version", "woodpecker/logidgen", "woodpecker/quorumidgen", "woodpecker/conditionwrite"},
		models.WoodpeckerLegacyKeys())
	assert.Equal(t, []string{"woodpecker/logs/", "woodpecker/quorums/", "woodpecker/logstores/", "woodpecker/readers/", "woodpecker/cleaning/"},
		models.WoodpeckerLegacyPrefixes())

	for _, k := range []string{"config/woodpecker.meta.prefix", "config/woodpecker/meta/prefix", "config/WOODPECKER_META_PREFIX"} {
		assert.True(t, models.IsWoodpeckerMetaPrefixConfigKey(k), k)
	}
	assert.False(t, models.IsWoodpeckerMetaPrefixConfigKey("config/woodpecker.meta.prefixes"))
	assert.False(t, models.IsWoodpeckerMetaPrefixConfigKey("woodpecker.meta.prefix"))
	assert.Equal(t, "config/woodpecker_meta_prefix",
		models.EffectiveWoodpeckerMetaPrefixKey([]string{"config/woodpecker.meta.prefix", "config/mqtype", "config/woodpecker_meta_prefix"}))
}

func TestParseWPKey(t *testing.T) {
	const p = "by-dev/woodpecker"
	cases := map[string]models.WPKey{
		p + "/instance":                         {Kind: models.WPInstance},
		p + "/version":                          {Kind: models.WPVersion},
		p + "/logidgen":                         {Kind: models.WPLogIDGen},
		p + "/quorumidgen":                      {Kind: models.WPQuorumIDGen},
		p + "/conditionwrite":                   {Kind: models.WPConditionWrite},
		p + "/quorums/1":                        {Kind: models.WPQuorum},
		p + "/logstores/n1":                     {Kind: models.WPLogStore},
		p + "/logs/by-dev-rootcoord-dml_0":      {Kind: models.WPLog, Log: "by-dev-rootcoord-dml_0"},
		p + "/logs/by-dev-rootcoord-dml_0/lock": {Kind: models.WPLogLock, Log: "by-dev-rootcoord-dml_0"},
		p + "/logs/by-dev-rootcoord-dml_0/lock/4e07a23cb39f270e": {Kind: models.WPLogLock, Log: "by-dev-rootcoord-dml_0"},
		p + "/logs/by-dev-rootcoord-dml_0/locks":                 {Kind: models.WPLogOther, Log: "by-dev-rootcoord-dml_0"},
		p + "/logs/by-dev-rootcoord-dml_0/segments/12":           {Kind: models.WPSegment, Log: "by-dev-rootcoord-dml_0", Segment: 12},
		p + "/logs/by-dev-rootcoord-dml_0/segments/":             {Kind: models.WPLogOther, Log: "by-dev-rootcoord-dml_0"},
		p + "/logs/by-dev-rootcoord-dml_0/segments/1/x":          {Kind: models.WPLogOther, Log: "by-dev-rootcoord-dml_0"},
		p + "/logs/":              {Kind: models.WPUnknown},
		p + "/readers/7/reader-a": {Kind: models.WPReader, LogID: 7},
		p + "/cleaning/7/3":       {Kind: models.WPCleaning, LogID: 7},
		p + "/marking/12/3":       {Kind: models.WPMarking, LogID: 12},
		p + "/readers/x/r":        {Kind: models.WPUnknown},
		p + "/readers/07/r":       {Kind: models.WPUnknown},
		p + "/logs-deleted/by-dev-rootcoord-dml_1-1733":          {Kind: models.WPLogDeleted, Log: "by-dev-rootcoord-dml_1", DeletedAt: 1733},
		p + "/logs-deleted/by-dev-rootcoord-dml_10-5/segments/2": {Kind: models.WPLogDeletedOther, Log: "by-dev-rootcoord-dml_10", DeletedAt: 5, Segment: 2},
		p + "/logs-deleted/by-dev-rootcoord-dml_1-x":             {Kind: models.WPUnknown},
		p + "/something": {Kind: models.WPUnknown},
	}
	for key, want := range cases {
		got, ok := models.ParseWPKey(p, key)
		assert.True(t, ok, key)
		assert.Equal(t, want, got, key)
	}
	_, ok := models.ParseWPKey(p, "by-dev/woodpeckers/logs/x")
	assert.False(t, ok)
	_, ok = models.ParseWPKey(p, "woodpecker/logs/x")
	assert.False(t, ok)

	for _, kind := range []models.WPKeyKind{models.WPInstance, models.WPVersion, models.WPLogIDGen, models.WPQuorumIDGen,
		models.WPConditionWrite, models.WPQuorum, models.WPLogStore, models.WPUnknown} {
		assert.False(t, kind.PerLog(), "kept: %d", kind)
	}
	for _, kind := range []models.WPKeyKind{models.WPLog, models.WPLogLock, models.WPSegment, models.WPLogOther,
		models.WPReader, models.WPCleaning, models.WPMarking, models.WPLogDeleted, models.WPLogDeletedOther} {
		assert.True(t, kind.PerLog(), "per log: %d", kind)
	}

	// A parked copy is "{log}-{digits}": x_10-55 is x_10's, not x_1's; x-1-55 is x-1's, not x's.
	for key, log := range map[string]string{p + "/logs-deleted/x_1-55": "x_1", p + "/logs-deleted/x_1-55/segments/0": "x_1",
		p + "/logs-deleted/x_10-55": "x_10", p + "/logs-deleted/x-1-55": "x-1"} {
		k, ok := models.ParseWPKey(p, key)
		assert.True(t, ok && (k.Kind == models.WPLogDeleted || k.Kind == models.WPLogDeletedOther), key)
		assert.Equal(t, log, k.Log, key)
	}
}

func TestDecodeWPValues(t *testing.T) {
	created := uint64(sample.Base.Unix())
	fresh, err := models.DecodeWPLogMeta(sample.WoodpeckerLog{ID: 4, Created: created, Modified: created + 60, TruncatedSegment: -1, TruncatedEntry: -1}.Encode())
	require.NoError(t, err)
	assert.Equal(t, models.WPLogMeta{LogID: 4, TruncatedSegment: -1, TruncatedEntry: -1, Created: created, Modified: created + 60}, fresh)

	// Truncated at segment 0: proto3 leaves the 0 out, which still reads as segment 0.
	trunc, err := models.DecodeWPLogMeta(sample.WoodpeckerLog{ID: 5, TruncatedSegment: 0, TruncatedEntry: 17}.Encode())
	require.NoError(t, err)
	assert.Equal(t, models.WPLogMeta{LogID: 5, TruncatedSegment: 0, TruncatedEntry: 17}, trunc)

	seg, err := models.DecodeWPSegmentMeta(sample.WoodpeckerSegment{No: 3, State: sample.WoodpeckerSealed, LastEntry: 99, Size: 4096}.Encode())
	require.NoError(t, err)
	assert.Equal(t, models.WPSegmentMeta{SegNo: 3, State: sample.WoodpeckerSealed, LastEntryID: 99, Size: 4096}, seg)

	_, err = models.DecodeWPLogMeta([]byte{0x08})
	assert.Error(t, err)
	_, err = models.DecodeWPLogMeta([]byte{0x42, 0x01, 0x00}) // field 8 as bytes
	assert.ErrorContains(t, err, "field 8")
	_, err = models.DecodeWPSegmentMeta([]byte{0xff})
	assert.Error(t, err)
}
