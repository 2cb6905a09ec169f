package models

import "testing"

func TestWoodpeckerObjectLayout(t *testing.T) {
	for root, want := range map[string]string{"files": "files/wp/7/", "": "wp/7/", "/a/b/": "a/b/wp/7/"} {
		if got := WoodpeckerLogObjectPrefix(root, 7); got != want {
			t.Errorf("WoodpeckerLogObjectPrefix(%q) = %q, want %q", root, got, want)
		}
	}
	p := "files/wp/7/"
	cases := []struct {
		key  string
		kind WPObjectKind
		seg  int64
	}{
		{"files/wp/7/0/0.blk", WPObjectBlock, 0},
		{"files/wp/7/12/345.blk", WPObjectBlock, 12},
		{"files/wp/7/3/m_2.blk", WPObjectMerged, 3},
		{"files/wp/7/3/footer.blk", WPObjectFooter, 3},
		{"files/wp/7/3/write.lock", WPObjectLock, 3},
		{"files/wp/7/3/notes.txt", WPObjectForeign, 0},
		{"files/wp/7/3/m_x.blk", WPObjectForeign, 0},
		{"files/wp/7/3/-1.blk", WPObjectForeign, 0},
		{"files/wp/7/03/1.blk", WPObjectForeign, 0},
		{"files/wp/7/x/1.blk", WPObjectForeign, 0},
		{"files/wp/7/3/sub/1.blk", WPObjectForeign, 0},
		{"files/wp/7/readme", WPObjectForeign, 0},
		{"files/wp/70/0/0.blk", WPObjectForeign, 0},
	}
	for _, c := range cases {
		kind, seg := ClassifyWPObject(p, c.key)
		if kind != c.kind || seg != c.seg {
			t.Errorf("ClassifyWPObject(%q) = %v %d, want %v %d", c.key, kind, seg, c.kind, c.seg)
		}
	}
}

func TestWoodpeckerStorageTypeConfigKey(t *testing.T) {
	keys := []string{ConfigPrefix + "woodpecker/storage/type", ConfigPrefix + "woodpecker.storage.type", ConfigPrefix + "mq/type", "config/x"}
	if !IsWoodpeckerStorageTypeConfigKey(keys[0]) || !IsWoodpeckerStorageTypeConfigKey(keys[1]) || IsWoodpeckerStorageTypeConfigKey(keys[2]) {
		t.Fatal("woodpecker.storage.type spellings")
	}
	if got := EffectiveWoodpeckerStorageTypeKey(keys); got != ConfigPrefix+"woodpecker/storage/type" {
		t.Fatalf("effective key %q", got)
	}
}
