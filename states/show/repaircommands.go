package show

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
)

// The command lines of the repairs that fix what `show vchannel-health`
// and `check` flag, whole: a FAIL ends with the one that fixes it (each is
// a dry run unless --run).

// FrozenBehind is how far a channel checkpoint at ts lags the consume
// checkpoint of its vchannel's pchannel, and whether that is over maxLag: a
// frozen vchannel, which CheckpointRepair moves up. A checkpoint as old as
// its pchannel's (Milvus stopped, or the pchannel idle) is not frozen: no
// repair moves it, a running flusher does (ok false, too, when the
// pchannel has no consume checkpoint).
func (st *ChannelState) FrozenBehind(vchannel string, ts uint64, maxLag time.Duration) (lag time.Duration, frozen bool) {
	cc, ok := st.ConsumeCPs[models.PChannelOf(vchannel)]
	if !ok {
		return 0, false
	}
	lag = models.TSOTime(cc.CP.TimeTick).Sub(models.TSOTime(ts))
	return lag, lag > maxLag
}

// CheckpointRepair moves a frozen vchannel's channel checkpoint up to its
// pchannel's consume checkpoint.
func CheckpointRepair(vchannel string) string {
	return "repair checkpoint --vchannel " + framework.QuoteWord(vchannel) + " --set-to pchannel-cp"
}

// RegistrationRepair recreates a vchannel's registration on its pchannel.
func RegistrationRepair(vchannel string) string {
	return "repair vchannel-registration --vchannel " + framework.QuoteWord(vchannel)
}

// BroadcastTaskRepair resets a broadcast task stuck in flight.
func BroadcastTaskRepair(id int64) string {
	return "repair wal-broadcast-task --id " + strconv.FormatInt(id, 10) + " --mode reset"
}

// RecoveryStorageRepair gives the vchannels of the recovery storage their
// schemas back.
const RecoveryStorageRepair = "repair wal-recovery-storage"

// ReplicatePChannelRemove deletes a stale replicating pchannel.
func ReplicatePChannelRemove(cluster, source string) string {
	return "remove replicate-pchannel --target-cluster " + framework.QuoteWord(cluster) + " --source-channel " + framework.QuoteWord(source)
}

// WriteCommands writes each command on a line of its own under a heading,
// indented by indent when it fits 80 columns there, else from the margin:
// whole, so that a terminal does not break it mid-token and a copy pastes
// it as one line.
func WriteCommands(w io.Writer, indent string, cmds []string) error {
	if len(cmds) == 0 {
		return nil
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%scommands (each a plan unless --run):\n", indent)
	for _, c := range cmds {
		c = framework.EscapeText(c)
		in := indent + "  "
		if utf8.RuneCountInString(in+c) > 80 {
			in = ""
		}
		fmt.Fprintf(&sb, "%s%s\n", in, c)
	}
	_, err := io.WriteString(w, sb.String())
	return err
}
