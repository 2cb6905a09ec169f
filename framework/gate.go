package framework

import "strings"

// Gate is one safety check of a write command's plan, with its verdict.
type Gate struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	// Overridden: the gate found something and a flag let it pass.
	Overridden bool     `json:"overridden,omitempty"`
	Detail     string   `json:"detail"`
	Count      int64    `json:"count"`
	Keys       []string `json:"keys,omitempty"`
}

// Refusal is nil when every gate passed, else the refusal (exit 3) of
// command naming each failed gate.
func Refusal(command string, gates []Gate) error {
	var failed []string
	for _, g := range gates {
		if !g.OK {
			failed = append(failed, g.Name+": "+g.Detail)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return Refusedf("%s refused, nothing was written: %s", command, strings.Join(failed, "; "))
}
