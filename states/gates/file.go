package gates

import (
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
