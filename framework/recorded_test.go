package framework

import (
	"slices"
	"testing"
)

type recordedParams struct {
	ParamBase `use:"rec cmd" desc:"a command whose flags a plan records"`
	Target    string   `name:"target" required:"true"`
	Scope     []string `name:"scope"`
	Growing   bool     `name:"allow-growing"`
	Limit     int64    `name:"limit" default:"10"`
	Password  string   `name:"password" secret:"true" env:"REC_PASSWORD"`
	WriteFlags
	Output
}

// A plan records the flags that decide what the command plans (not their
// defaults), never a secret nor a write or output flag; the words parse
// back through the command into the same params, the secret from the
// environment; a word a plan never records is refused.
func TestRecordedFlagsRoundTrip(t *testing.T) {
	p := &recordedParams{Target: "kafka", Scope: []string{"a", "b"}, Growing: true, Limit: 10, Password: "s3cret",
		WriteFlags: WriteFlags{MaxTxnOps: 7, BackupDir: "/b", PlanOut: "/p"}, Output: Output{Format: "json"}}
	words, err := RecordedFlags(p)
	want := []string{"--target=kafka", "--scope=a", "--scope=b", "--allow-growing=true"}
	if err != nil || !slices.Equal(words, want) {
		t.Fatalf("recorded %q %v, want %q", words, err, want)
	}
	t.Setenv("REC_PASSWORD", "from-env")
	cmd := WriteCommand[recordedParams](nil)
	got, err := cmd.ParseRecorded(words)
	if err != nil {
		t.Fatal(err)
	}
	q := got.(*recordedParams)
	if q.Target != "kafka" || !slices.Equal(q.Scope, p.Scope) || !q.Growing || q.Limit != 10 || q.Password != "from-env" || q.MaxTxnOps != 128 || q.PlanOut != "" {
		t.Fatalf("parsed %+v", q)
	}
	for _, bad := range [][]string{{"--target=kafka", "--password=x"}, {"--target=kafka", "--plan-out=/x"}, {"--target=kafka", "--run"}, {"kafka"}, {"--target", "kafka"},
		{"--target=kafka", "--scope=a\nverify: ok"}, {"--target=kafka", "--scope=a\x1b[2J"}} {
		if _, err := cmd.ParseRecorded(bad); err == nil {
			t.Fatalf("%q parsed", bad)
		}
	}
}
