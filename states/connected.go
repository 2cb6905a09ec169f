package states

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/states/applyplan"
	"github.com/heron-shell/heron/states/backup"
	"github.com/heron-shell/heron/states/backups"
	"github.com/heron-shell/heron/states/check"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/parse"
	"github.com/heron-shell/heron/states/remove"
	"github.com/heron-shell/heron/states/repair"
	"github.com/heron-shell/heron/states/reset"
	"github.com/heron-shell/heron/states/resetwal"
	"github.com/heron-shell/heron/states/restore"
	"github.com/heron-shell/heron/states/show"
)

// ConnectedCommands are the namespaces of the connected state over inst:
// show, reset, repair, remove, restore, apply, backup and check. It is their one list: connect and the demo build
// the connected state with it; a new namespace is one line here.
func ConnectedCommands(inst *instance.Instance) []*framework.Command {
	var cmds []*framework.Command
	for _, ns := range []func(*instance.Instance) []*framework.Command{
		show.Commands,
		reset.Commands,
		resetwal.Commands,
		repair.Commands,
		remove.Commands,
		restore.Commands,
		applyplan.Commands,
		backup.Commands,
		check.Commands,
	} {
		cmds = append(cmds, ns(inst)...)
	}
	return cmds
}

// Connected is the state of a shell connected to one Milvus instance.
type Connected struct {
	inst *instance.Instance
	// cmds are the namespaces; disconnect and version are the state's own.
	cmds []*framework.Command
	// offline is the state disconnect moves to.
	offline   framework.State
	closeOnce sync.Once
	closeErr  error
	// completions are this state's completion values (see CompleteValues).
	completions completionCache
}

// NewConnected returns the connected state over inst holding cmds (usually
// ConnectedCommands(inst)) besides disconnect and version; closing the state
// closes inst.
func NewConnected(inst *instance.Instance, cmds []*framework.Command) framework.State {
	return &Connected{inst: inst, cmds: cmds}
}

// Instance is the connected instance.
func (c *Connected) Instance() *instance.Instance { return c.inst }

func (c *Connected) Prompt() string { return fmt.Sprintf("Milvus(%s) > ", c.inst.Layout.RootPath) }

func (c *Connected) Close() error {
	c.closeOnce.Do(func() {
		if c.inst != nil {
			apply.Forget(c.inst)
			c.closeErr = c.inst.Close()
		}
	})
	return c.closeErr
}

func (c *Connected) Commands() []*framework.Command {
	return append([]*framework.Command{
		framework.Read(c, runDisconnect),
		versionCommand(),
		backups.Command(),
	}, append(parse.Commands(), c.cmds...)...)
}

// Unknown answers connect typed while connected.
func (c *Connected) Unknown(words []string) error {
	if len(words) > 0 {
		if err := programCommand(words); err != nil {
			return err
		}
		if err := birdwatcherWrite(words); err != nil {
			return err
		}
	}
	if len(words) > 0 && words[0] == "connect" {
		return framework.Usagef("already connected to %s (root path %s): disconnect first",
			strings.Join(c.inst.Endpoints, ","), c.inst.Layout.RootPath)
	}
	return nil
}

// DisconnectParams are the flags of disconnect.
type DisconnectParams struct {
	framework.ParamBase `use:"disconnect" desc:"close the connection and go back offline" example:"disconnect"`
	framework.Output
}

type disconnected struct {
	framework.Result
	next framework.State
}

func (d disconnected) NextState() framework.State { return d.next }

// runDisconnect moves the shell offline; the shell closes this state, and
// with it the etcd client.
func runDisconnect(_ context.Context, c *Connected, _ *DisconnectParams, _ framework.IO) (framework.Result, error) {
	next := c.offline
	if next == nil {
		next = NewOffline()
	}
	return disconnected{framework.Message("disconnected from etcd %s", strings.Join(c.inst.Endpoints, ",")), next}, nil
}
