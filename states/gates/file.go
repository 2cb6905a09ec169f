package gates

import (
	"context"
	"fmt"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/states/instance"
)

// File is the file a command writes from (apply's plan, restore's backup)
// as its gates name it: What it is ("plan"), Made how it came from its
// instance ("made for"), and the root path of that instance.
type File struct {
	What, Made string
	RootPath   string
}

// FileGates are the gates of a command that writes what a file holds, in
// the order plans show them: the file is of this instance (its root path),
// then extra (the command's own checks of the file), then Instance's.
func FileGates(ctx context.Context, inst *instance.Instance, rev int64, f File, extra ...framework.Gate) ([]framework.Gate, error) {
	instanceGates, err := Instance(ctx, inst, rev)
	if err != nil {
		return nil, err
	}
	return append(append([]framework.Gate{FileGate(inst, f)}, extra...), instanceGates...), nil
}

// FileGate is the gate "FILE of this instance": the file's root path is
// the instance's.
func FileGate(inst *instance.Instance, f File) framework.Gate {
	same := f.RootPath == inst.Layout.RootPath
	g := framework.Gate{Name: f.What + " of this instance", OK: same, Detail: fmt.Sprintf("the %s's root path %q is the instance's", f.What, f.RootPath)}
	if !same {
		g.Detail = fmt.Sprintf("the %s was %s root path %q, this instance is %q", f.What, f.Made, f.RootPath, inst.Layout.RootPath)
		g.Fix = []framework.Step{{Order: framework.StepRerun, Text: fmt.Sprintf("re-run connected to the instance the %s was %s (connect --rootPath %s)", f.What, f.Made, f.RootPath)}}
	}
	return g
}
