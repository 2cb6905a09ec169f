package gates

import (
	"strings"

	"github.com/heron-shell/heron/models"
)

// writers are the write commands whose files (plans, backups) heron acts
// on, and the prefixes each may write, derived from the instance's layout,
// never from a file: reset checkpoint the meta root and Milvus's etcd config
// source; reset wal woodpecker's metadata (under the root path, or the
// legacy top-level woodpecker/: models.WoodpeckerConfiguredPrefix); restore
// and apply put back what those wrote.
var writers = map[string]func(l models.Layout) []string{
	"reset checkpoint": func(l models.Layout) []string { return []string{l.MetaRoot(), l.Root(models.ConfigPrefix)} },
	"reset wal":        instanceAndWoodpecker,
	"restore":          instanceAndWoodpecker,
	// The repairs write under the meta root only.
	"repair checkpoint":            metaRoot,
	"repair vchannel-registration": metaRoot,
	"repair wal-broadcast-task":    metaRoot,
	"repair wal-recovery-storage":  metaRoot,
	"remove replicate-pchannel":    metaRoot,
	"apply":                        instanceAndWoodpecker,
}

// repairs are the writers whose files neither move a position to another
// WAL nor need the in-flight broadcast gate: a stuck task is what one of
// them repairs, and a restore of its backup puts such a task back.
var repairs = map[string]bool{"repair checkpoint": true, "repair vchannel-registration": true, "repair wal-broadcast-task": true,
	"repair wal-recovery-storage": true, "remove replicate-pchannel": true}

// RepairWaiver is the instance gates a repair, or a restore or apply of
// its file, waives (apply.Waiver): nil for any other writer.
func RepairWaiver(writer string) map[string]string {
	if !repairs[writer] {
		return nil
	}
	return map[string]string{InFlightName: "a repair moves no position to another WAL, and a stuck broadcast task is what `repair wal-broadcast-task` repairs"}
}

func metaRoot(l models.Layout) []string { return []string{l.MetaRoot()} }

func instanceAndWoodpecker(l models.Layout) []string {
	return []string{l.RootPath + "/", models.WoodpeckerLegacyRoot + "/"}
}

// WriteScope is what the write command planner may write on the instance
// of layout l; ok is false for a command heron does not know.
func WriteScope(l models.Layout, planner string) (prefixes []string, ok bool) {
	scope, ok := writers[planner]
	if !ok {
		return nil, false
	}
	return scope(l), true
}

// Writer is the write command a file's header names: its Planner, or for a
// file written before heron recorded it, the command its command line
// starts with ("" when none heron knows).
func Writer(planner, commandLine string) string {
	if planner != "" {
		return planner
	}
	best := ""
	for name := range writers {
		if (commandLine == name || strings.HasPrefix(commandLine, name+" ")) && len(name) > len(best) {
			best = name
		}
	}
	return best
}
