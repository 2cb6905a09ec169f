// Package states holds the states of the heron shell: offline, and connected
// to the etcd of one Milvus instance. The namespaces of the connected state
// (show, reset, restore) live in the folders beside this file; one function,
// ConnectedCommands, lists them.
package states

import (
	"slices"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/states/backups"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/parse"
)

// Offline is the state before connect.
type Offline struct {
	// commands builds the namespaces of the state connect moves to.
	commands func(*instance.Instance) []*framework.Command
}

// NewOffline returns the offline state; connect moves to a connected state
// holding ConnectedCommands.
func NewOffline() framework.State { return &Offline{commands: ConnectedCommands} }

func (*Offline) Prompt() string { return "Offline > " }

func (*Offline) Close() error { return nil }

func (o *Offline) Commands() []*framework.Command {
	return append([]*framework.Command{
		framework.Read(o, runConnect),
		versionCommand(),
		backups.Command(),
	}, parse.Commands()...)
}

// Unknown answers a command of the connected state typed offline: it needs
// a connection, not a spelling fix.
func (o *Offline) Unknown(words []string) error {
	if len(words) == 0 {
		return nil
	}
	if err := programCommand(words); err != nil {
		return err
	}
	notConnected := framework.Usagef("not connected: run connect --etcd HOST:PORT first")
	line := strings.Join(words, " ") + " "
	connected := o.connected(nil).Commands()
	for _, c := range connected {
		if strings.HasPrefix(line, c.Path()+" ") {
			return notConnected // heron's repair checkpoint, before birdwatcher's repair verb
		}
	}
	if err := birdwatcherWrite(words); err != nil {
		return err
	}
	for _, c := range connected {
		if first, _, _ := strings.Cut(c.Path(), " "); first == words[0] {
			return notConnected
		}
	}
	return nil
}

// HelpNote names what connect unlocks, under the offline list of commands.
func (o *Offline) HelpNote() string {
	here := map[string]bool{"disconnect": true}
	for _, c := range o.Commands() {
		here[c.Path()] = true
	}
	var paths []string
	for _, c := range o.connected(nil).Commands() {
		if p := c.Path(); !here[p] {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	return "After connect: " + strings.Join(paths, ", ") + "."
}

// birdwatcherWrites are birdwatcher's write verbs that heron does not have,
// each with what heron offers instead: an operator used to birdwatcher gets
// the safe path, not a bare unknown command.
var birdwatcherWrites = map[string]string{
	"remove": "it deletes metadata keys without a plan or a backup; look first (show segment, show checkpoint), keep a copy (backup --file FILE), and use a write that plans and backs up (reset checkpoint, reset wal, restore; remove replicate-pchannel for a stale replicating pchannel)",
	"kill":   "a session key belongs to a running component; stop the component (kubectl scale or delete its pod) and its lease expires; show session lists who is alive",
	"flush":  "heron talks to etcd, not to a running Milvus; flush through Milvus (pymilvus: collection.flush()) before stopping it; show segment --state Growing lists what is not flushed",
	"repair": "heron has the repairs of what check finds (repair checkpoint, repair vchannel-registration, repair wal-broadcast-task, repair wal-recovery-storage), each with a plan, a backup and a verify; for the rest, reset checkpoint, reset wal, restore, apply --file (help lists them)",
}

// birdwatcherWrite answers a birdwatcher write verb (see birdwatcherWrites),
// naming its subcommand: heron has some repair and remove commands, so
// "heron does not do repair" alone would be false.
func birdwatcherWrite(words []string) error {
	if alt, ok := birdwatcherWrites[words[0]]; ok {
		what := words[0]
		if len(words) > 1 && !strings.HasPrefix(words[1], "-") {
			what += " " + words[1]
		}
		return framework.Usagef("heron does not do %s (a birdwatcher write): %s", what, alt)
	}
	return nil
}

// programCommand answers heron's own subcommands (heron demo, heron
// load-backup FILE), which start a new shell: typed inside one, they say
// where to run them.
func programCommand(words []string) error {
	switch words[0] {
	case "load-backup", "demo":
		arg := ""
		if words[0] == "load-backup" {
			arg = " FILE"
			if len(words) > 1 && !strings.HasPrefix(words[1], "-") {
				arg = " " + words[1]
			}
		}
		return framework.Usagef("%s is not a command of the shell: leave it (exit) and run `heron %s%s` from your shell; it opens a new shell", words[0], words[0], arg)
	}
	return nil
}

// connected is the state connect moves to: inst with the offline state's
// command set; disconnect comes back to o.
func (o *Offline) connected(inst *instance.Instance) *Connected {
	return &Connected{inst: inst, cmds: o.commands(inst), offline: o}
}
