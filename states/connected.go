package states

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/states/instance"
)

// Namespaces are the command sets of the connected state (show, reset,
// restore, ...), each built on the instance; main registers them.
var Namespaces []func(*instance.Instance) []*framework.Command

// Register adds a namespace to the connected state.
func Register(ns func(*instance.Instance) []*framework.Command) {
	Namespaces = append(Namespaces, ns)
}

// Connected is the state of a shell connected to one Milvus instance.
type Connected struct {
	inst      *instance.Instance
	closeOnce sync.Once
	closeErr  error
}

// NewConnected returns the connected state over inst; closing the state
// closes inst.
func NewConnected(inst *instance.Instance) framework.State {
	return &Connected{inst: inst}
}

// Instance is the connected instance.
func (c *Connected) Instance() *instance.Instance { return c.inst }

func (c *Connected) Prompt() string { return fmt.Sprintf("Milvus(%s) > ", c.inst.Layout.RootPath) }

func (c *Connected) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.inst.Close() })
	return c.closeErr
}

func (c *Connected) Commands() []*framework.Command {
	cmds := []*framework.Command{
		framework.Read(c, runDisconnect),
		versionCommand(),
	}
	for _, ns := range Namespaces {
		cmds = append(cmds, ns(c.inst)...)
	}
	return cmds
}

// DisconnectParams are the flags of disconnect.
type DisconnectParams struct {
	framework.ParamBase `use:"disconnect" desc:"close the connection and go back offline"`
}

type disconnected struct {
	framework.Result
}

func (disconnected) NextState() framework.State { return NewOffline() }

// runDisconnect moves the shell offline; the shell closes this state, and
// with it the etcd client.
func runDisconnect(_ context.Context, c *Connected, _ *DisconnectParams) (framework.Result, error) {
	return disconnected{framework.Message("disconnected from etcd %s", strings.Join(c.inst.Endpoints, ","))}, nil
}
