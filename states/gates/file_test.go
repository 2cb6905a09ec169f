package gates

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// A file of another root path is refused, with the re-run that fixes it.
func TestFileGate(t *testing.T) {
	inst := instance.New(nil, models.NewLayout("by-dev", "meta"), nil)
	assert.Equal(t, framework.Gate{Name: "backup of this instance", OK: true, Detail: `the backup's root path "by-dev" is the instance's`},
		FileGate(inst, File{What: "backup", Made: "taken of", RootPath: "by-dev"}))
	assert.Equal(t, framework.Gate{Name: "plan of this instance", Detail: `the plan was made for root path "other", this instance is "by-dev"`,
		Fix: []framework.Step{{Order: framework.StepRerun, Text: "re-run connected to the instance the plan was made for (connect --rootPath other)"}}},
		FileGate(inst, File{What: "plan", Made: "made for", RootPath: "other"}))
}
