// Package states holds the states of the heron shell: offline, and connected
// to the etcd of one Milvus instance. The namespaces of the connected state
// (show, reset, restore) live in the folders beside this file; one function,
// ConnectedCommands, lists them.
package states

import (
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/states/instance"
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
	return []*framework.Command{
		framework.Read(o, runConnect),
		versionCommand(),
	}
}

// Unknown answers a command of the connected state typed offline: it needs
// a connection, not a spelling fix.
func (o *Offline) Unknown(words []string) error {
	if len(words) == 0 {
		return nil
	}
	for _, c := range o.connected(nil).Commands() {
		if first, _, _ := strings.Cut(c.Path(), " "); first == words[0] {
			return framework.Usagef("not connected: run connect --etcd HOST:PORT first")
		}
	}
	return nil
}

// connected is the state connect moves to: inst with the offline state's
// command set; disconnect comes back to o.
func (o *Offline) connected(inst *instance.Instance) *Connected {
	return &Connected{inst: inst, cmds: o.commands(inst), offline: o}
}
