package gates

import (
	"fmt"
	"slices"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/states/woodpecker"
)

// WoodpeckerTargetName is the gate a move to woodpecker runs.
const WoodpeckerTargetName = "woodpecker target is empty"

// WoodpeckerTarget is the gate "woodpecker target is empty": no log of a
// pchannel in scope exists in woodpecker's metadata, under any prefix a
// release writes (the effective one, the legacy woodpecker/, the configured
// and default {root}/{prefix}); logs under {root}/wp (which no release
// writes) are only named. Any per-log key counts, not only segments: a log
// that keeps a truncation point without segments numbers new segments from 0
// while a reader opened at {0,0} waits for the truncation point
// (woodpecker/log/log_handle.go:124,564,912-966 @v0.1.35), so the WAL never
// opens. A prefix heron may not read refuses too: it cannot tell. allow
// (--allow-non-empty-target) turns a refusal into an overridden pass.
// scoped: the command names its pchannels (the remedy names them too).
func WoodpeckerTarget(inv *woodpecker.Inventory, inScope func(pchannel string) bool, scoped, allow bool) framework.Gate {
	var logs []woodpecker.Log
	var harmless []string
	wpPrefix := ""
	for _, l := range inv.InstanceLogs(inScope) {
		if onlyWP(inv, l.Prefix) {
			harmless = append(harmless, l.Describe())
			wpPrefix = l.Prefix
			continue
		}
		logs = append(logs, l)
	}
	var unread, looked, found []string
	for _, p := range inv.Prefixes {
		looked = append(looked, p.Prefix+"/")
		if !p.Readable {
			unread = append(unread, fmt.Sprintf("%s/ (%s)", p.Prefix, p.Error))
		}
		if slices.Contains(p.Roles, woodpecker.RoleFound) && slices.ContainsFunc(logs, func(l woodpecker.Log) bool { return l.Prefix == p.Prefix }) {
			found = append(found, p.Prefix+"/")
		}
	}
	eff := "effective prefix " + inv.Effective.Describe()
	g := framework.Gate{Name: WoodpeckerTargetName, OK: true,
		Detail: fmt.Sprintf("no woodpecker log of a pchannel in scope under %s; %s", strings.Join(looked, ", "), eff)}
	if len(harmless) > 0 {
		g.Detail += "; logs under " + wpPrefix + "/, which no woodpecker release reads, stay: " + capped(harmless)
	}
	if len(logs) == 0 && len(unread) == 0 {
		return g
	}
	var named, pchannels []string
	for _, l := range logs {
		named = append(named, l.Describe())
		if !slices.Contains(pchannels, l.Name) {
			pchannels = append(pchannels, l.Name)
		}
	}
	var why []string
	if len(logs) > 0 {
		remedy := remedyOf(pchannels, scoped)
		why = append(why, fmt.Sprintf("%s of pchannels in scope exist, so the target WAL is not fresh (Milvus would replay their segments, and a log that keeps a truncation point without segments never opens): %s; %s; empty them with `%s`",
			framework.Plural(len(logs), "woodpecker log", ""), capped(named), eff, remedy))
	}
	if len(found) > 0 {
		why = append(why, fmt.Sprintf("heron found %s by the LogMeta of the instance's pchannels under it, not by any setting it can read: woodpecker.meta.prefix is probably set in milvus.yaml", strings.Join(found, ", ")))
	}
	if len(unread) > 0 {
		why = append(why, "heron cannot read "+strings.Join(unread, ", ")+", so it cannot tell whether logs of the pchannels are there; read it with a user that may")
	}
	g.OK, g.Count = false, int64(len(logs)+len(unread))
	if len(logs) > 0 {
		g.Fix = append(g.Fix, framework.Step{Order: framework.StepTarget, Text: "empty the woodpecker logs with `" + remedyOf(pchannels, scoped) + "`"})
	}
	if len(unread) > 0 {
		g.Fix = append(g.Fix, framework.Step{Order: framework.StepOther, Text: "give heron a user that may read the woodpecker prefixes it names"})
	}
	g.Keys = append(named, unread...)[:min(len(named)+len(unread), MaxKeys)]
	g.Detail = strings.Join(why, "; ")
	if allow {
		g.OK, g.Overridden, g.Fix = true, true, nil
		g.Detail = "--allow-non-empty-target: " + strings.Join(why, "; ") + "; Milvus will read what the logs hold as its WAL from the earliest position"
	}
	return g
}

// onlyWP reports whether prefix is only {root}/wp: no release writes there.
func onlyWP(inv *woodpecker.Inventory, prefix string) bool {
	for _, p := range inv.Prefixes {
		if p.Prefix == prefix {
			return len(p.Roles) == 1 && p.Roles[0] == woodpecker.RoleWP
		}
	}
	return false
}

// capped joins at most MaxKeys items, saying how many more there are.
func capped(items []string) string {
	if len(items) <= MaxKeys {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:MaxKeys], ", "), len(items)-MaxKeys)
}

// remedyOf is the command that empties the woodpecker logs of pchannels.
func remedyOf(pchannels []string, scoped bool) string {
	remedy := "reset wal --target woodpecker"
	if scoped {
		for _, pc := range pchannels {
			remedy += " --pchannel " + pc
		}
	}
	return remedy + " --run"
}
