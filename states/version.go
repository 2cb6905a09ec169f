package states

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"text/tabwriter"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
)

// Version is heron's version, set at build time:
// -ldflags "-X github.com/heron-shell/heron/states.Version=v1.2.3".
var Version = "dev"

// The write kit records the version in every plan and backup it writes
// (apply.HeronBuild); it cannot import this package.
func init() { apply.Version = Version }

// goAPIModule is the module whose version `version` reports.
const goAPIModule = "github.com/milvus-io/milvus-proto/go-api/v3"

// versionResult is what version prints.
type versionResult struct {
	Heron string `json:"heron"`
	Go    string `json:"go"`
	GoAPI string `json:"go_api"`
}

// VersionInfo returns heron's version, the Go version and go-api/v3's version.
func VersionInfo() framework.Result {
	v := &versionResult{Heron: Version, Go: runtime.Version(), GoAPI: "unknown"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == goAPIModule {
				v.GoAPI = d.Version
				if d.Replace != nil && d.Replace.Version != "" {
					v.GoAPI = d.Replace.Version
				}
			}
		}
	}
	return v
}

func (v *versionResult) JSON() any { return v }

func (v *versionResult) Table(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "heron\t%s\n", v.Heron)
	fmt.Fprintf(tw, "go\t%s\n", v.Go)
	fmt.Fprintf(tw, "go-api/v3\t%s\n", v.GoAPI)
	return tw.Flush()
}

func (v *versionResult) Lines(w io.Writer) error {
	return framework.WriteLine(w, "heron", v.Heron, "go", v.Go, "go_api", v.GoAPI)
}

// VersionParams are the flags of version.
type VersionParams struct {
	framework.ParamBase `use:"version" desc:"print the versions of heron, Go and go-api" example:"version --format json"`
	framework.Output
}

func versionCommand() *framework.Command {
	return framework.Read(struct{}{}, func(context.Context, struct{}, *VersionParams, framework.IO) (framework.Result, error) {
		return VersionInfo(), nil
	})
}
