package resetwal

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/states/woodpecker"
)

// Summary is the plan of `reset wal`: its view in every format.
type Summary struct {
	Command   string               `json:"command"`
	Target    string               `json:"target"`
	Revision  int64                `json:"revision"`
	RootPath  string               `json:"root_path"`
	Effective woodpecker.Effective `json:"effective_prefix"`
	Scope     Scope                `json:"scope"`
	// StorageType is woodpecker.storage.type.
	StorageType string `json:"storage_type"`
	// StorageFrom is where it came from: --storage-type, the etcd config
	// key, or "default".
	StorageFrom string      `json:"storage_from"`
	Objects     ObjectsInfo `json:"objects"`
	Logs        []LogRow    `json:"logs"`
	// Keys are the etcd keys deleted; ObjectsTotal and ObjectBytes the
	// objects deleted (0 when heron cannot reach them).
	Keys         int64             `json:"keys"`
	ObjectsTotal int64             `json:"objects_total"`
	ObjectBytes  int64             `json:"object_bytes"`
	Logidgen     map[string]string `json:"logidgen"`
	Gates        []framework.Gate  `json:"gates"`
	Warnings     []string          `json:"warnings"`
	Kept         []string          `json:"kept"`
	Reminders    []string          `json:"reminders"`
}

// Scope is what the run empties: every log of the instance's pchannels, or
// those of the --pchannel flags.
type Scope struct {
	WholeInstance bool     `json:"whole_instance"`
	PChannels     []string `json:"pchannels"`
}

// ObjectsInfo says where the logs' data is and whether heron deletes it.
type ObjectsInfo struct {
	Reachable bool   `json:"reachable"`
	Location  string `json:"location"`
	Note      string `json:"note"`
}

// LogRow is one log the run empties.
type LogRow struct {
	Prefix           string  `json:"prefix"`
	Name             string  `json:"name"`
	ID               int64   `json:"id"`
	ParkedIDs        []int64 `json:"parked_ids,omitempty"`
	Segments         int64   `json:"segments"`
	TruncatedSegment int64   `json:"truncated_segment"`
	TruncatedEntry   int64   `json:"truncated_entry"`
	Keys             int64   `json:"keys"`
	// Objects and ObjectBytes are its objects of woodpecker's layout; -1
	// when heron does not list them (no --minio-address).
	Objects        int64    `json:"objects"`
	ObjectBytes    int64    `json:"object_bytes"`
	ObjectPrefixes []string `json:"object_prefixes,omitempty"`
	// Foreign are other objects under its folders: kept.
	Foreign []string `json:"foreign_objects,omitempty"`
}

func (r LogRow) truncation() string {
	if r.TruncatedSegment < 0 && r.TruncatedEntry < 0 {
		return "-"
	}
	return fmt.Sprintf("%d:%d", r.TruncatedSegment, r.TruncatedEntry)
}

func (r LogRow) objects() (string, string) {
	if r.Objects < 0 {
		return "-", "-"
	}
	return fmt.Sprint(r.Objects), fmt.Sprint(r.ObjectBytes)
}

func (s *Summary) JSON() any { return s }

// logsTable writes the logs. On a terminal too narrow for it (80 columns)
// the prefix every log shares moves to the title and each log is named by
// the part that tells the pchannels apart (dml_0): what tells rows apart
// stays, and no cell is cut.
func (s *Summary) logsTable(w io.Writer) error {
	prefixes, names := make([]string, len(s.Logs)), make([]string, len(s.Logs))
	for i, r := range s.Logs {
		prefixes[i], names[i] = framework.EscapeText(r.Prefix)+"/", framework.EscapeText(r.Name)
	}
	title := fmt.Sprintf("logs (%d etcd keys, %d objects, %d bytes):", s.Keys, s.ObjectsTotal, s.ObjectBytes)
	render := func(narrow bool) string {
		var b strings.Builder
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		if narrow {
			fmt.Fprintln(tw, "  LOG\tID\tSEGMENTS\tTRUNCATED\tKEYS\tOBJECTS\tBYTES")
		} else {
			fmt.Fprintln(tw, "  PREFIX\tLOG\tID\tSEGMENTS\tTRUNCATED\tKEYS\tOBJECTS\tBYTES")
		}
		for i, r := range s.Logs {
			objs, bytes := r.objects()
			cells := fmt.Sprintf("%d\t%d\t%s\t%d\t%s\t%s", r.ID, r.Segments, r.truncation(), r.Keys, objs, bytes)
			if narrow {
				fmt.Fprintf(tw, "  %s\t%s\n", framework.DistinctPart(names[i], names), cells)
			} else {
				fmt.Fprintf(tw, "  %s\t%s\t%s\n", prefixes[i], names[i], cells)
			}
		}
		_ = tw.Flush()
		return b.String()
	}
	table := render(false)
	shared := !slices.ContainsFunc(prefixes, func(p string) bool { return p != prefixes[0] })
	if cols, ok := framework.TerminalWidth(w); ok && shared && framework.MaxLineWidth(table) > cols {
		title = fmt.Sprintf("logs under %s (%d etcd keys, %d objects, %d bytes):", prefixes[0], s.Keys, s.ObjectsTotal, s.ObjectBytes)
		table = render(true)
	}
	_, err := fmt.Fprintf(w, "%s\n%s", title, table)
	return err
}

func (s *Summary) Table(w io.Writer) error {
	scope := "every pchannel of the instance"
	if !s.Scope.WholeInstance {
		scope = strings.Join(s.Scope.PChannels, ", ")
	}
	fmt.Fprintf(w, "reset wal --target %s: empty woodpecker's logs of %s (root %s, revision %d)\n", s.Target, scope, s.RootPath, s.Revision)
	fmt.Fprintf(w, "woodpecker prefix: %s\n", s.Effective.Describe())
	fmt.Fprintf(w, "storage: %s (%s), %s\n  %s\n", s.StorageType, s.StorageFrom, s.Objects.Location, s.Objects.Note)
	if len(s.Logs) == 0 {
		fmt.Fprintln(w, "logs: none in scope")
	} else {
		if err := s.logsTable(w); err != nil {
			return err
		}
	}
	if err := framework.WriteGates(w, s.Gates); err != nil {
		return err
	}
	for _, k := range s.Kept {
		fmt.Fprintf(w, "kept: %s\n", framework.EscapeText(k))
	}
	for _, m := range s.Warnings {
		fmt.Fprintf(w, "warning: %s\n", framework.EscapeText(m))
	}
	for _, r := range s.Reminders {
		fmt.Fprintf(w, "reminder: %s\n", r)
	}
	return nil
}

func (s *Summary) Lines(w io.Writer) error {
	if err := framework.WriteLine(w, "plan", s.Command, "target", s.Target, "root", s.RootPath, "revision", s.Revision,
		"prefix", s.Effective.Prefix, "prefix_reason", s.Effective.Reason, "storage", s.StorageType,
		"objects_reachable", s.Objects.Reachable, "keys", s.Keys, "objects", s.ObjectsTotal, "bytes", s.ObjectBytes); err != nil {
		return err
	}
	for _, r := range s.Logs {
		objs, bytes := r.objects()
		if err := framework.WriteLine(w, "log", r.Name, "prefix", r.Prefix, "id", r.ID, "segments", r.Segments,
			"truncated", r.truncation(), "keys", r.Keys, "objects", objs, "bytes", bytes, "foreign", len(r.Foreign)); err != nil {
			return err
		}
	}
	if err := framework.GateLines(w, s.Gates); err != nil {
		return err
	}
	for _, m := range s.Warnings {
		if err := framework.WriteLine(w, "warning", m); err != nil {
			return err
		}
	}
	return nil
}
