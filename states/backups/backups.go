// Package backups is `backups [--dir DIR]`: the heron backup files in the
// working folder and in each --dir, newest first, each with the command
// that wrote it, the revision its plan read, its key count and the backup
// it continues (a chain left by an interrupted run). It reads files only:
// offline as well as connected, so that a new session (a new pod) finds
// the backups of a run that was killed.
package backups

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
)

// Params are the flags of backups.
type Params struct {
	framework.ParamBase `use:"backups" desc:"list the heron backup files in the working folder and --dir, newest first: command, revision, keys, chain" example:"backups --dir /backups"`
	Dirs                []string `name:"dir" placeholder:"DIR" complete:"-" desc:"also list the backups in this folder (repeatable; the working folder is always listed)"`
	Root                string   `name:"root" placeholder:"ROOT" desc:"only the backups of this root path"`
	framework.Output
}

// Command is backups.
func Command() *framework.Command {
	return framework.Read(struct{}{}, func(_ context.Context, _ struct{}, p *Params, _ framework.IO) (framework.Result, error) {
		dirs := Folders(p.Dirs)
		return &Result{Folders: dirs, Backups: apply.ListBackups(dirs, p.Root)}, nil
	})
}

// Folders are the folders a search for backups reads: the working folder,
// then each of dirs once.
func Folders(dirs []string) []string {
	out := []string{"."}
	for _, d := range dirs {
		if d != "" && d != "." && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func escaped(list []string) string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = framework.EscapeText(s)
	}
	return strings.Join(out, ", ")
}

// Result is the listing.
type Result struct {
	Folders []string              `json:"folders"`
	Backups []apply.BackupListing `json:"backups"`
}

func (r *Result) JSON() any { return r }

// Table writes one block a backup: its path on a line of its own (whole:
// it is what restore --file takes), then its command, revision, keys and
// time, then the backup it continues.
func (r *Result) Table(w io.Writer) error {
	if len(r.Backups) == 0 {
		fmt.Fprintf(w, "no heron backup in %s\n", escaped(r.Folders))
		return nil
	}
	fmt.Fprintf(w, "%s in %s, newest first:\n", framework.Plural(len(r.Backups), "heron backup", ""), escaped(r.Folders))
	for _, b := range r.Backups {
		fmt.Fprintf(w, "%s\n", framework.EscapeText(b.Path))
		keys := "no end line: cut short, restore refuses it"
		if b.Complete {
			keys = framework.Plural(b.Keys, "key", "")
		}
		fmt.Fprintf(w, "  %s\n  root %s, revision %d, %s, written %s\n", framework.EscapeText(b.Header.Command),
			framework.EscapeText(b.Header.RootPath), b.Header.Revision, keys, b.Header.Created.UTC().Format("2006-01-02 15:04:05Z"))
		if b.Header.Continues != "" {
			fmt.Fprintf(w, "  continues (a split state left by an interrupted run):\n    %s\n", framework.EscapeText(b.Header.Continues))
		}
	}
	return nil
}

func (r *Result) Lines(w io.Writer) error {
	for _, b := range r.Backups {
		if err := framework.WriteLine(w, "path", b.Path, "command", b.Header.Command, "root", b.Header.RootPath,
			"revision", b.Header.Revision, "keys", b.Keys, "complete", b.Complete, "created", b.Header.Created.UTC().Format("2006-01-02T15:04:05Z"),
			"continues", b.Header.Continues); err != nil {
			return err
		}
	}
	return nil
}
