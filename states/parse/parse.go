// Package parse is `parse-wal-message-id` and `parse-ts`: decode a message
// id or a TSO copied from a Milvus log line or a listing, as birdwatcher's
// parse tools do. They read nothing: offline as well as connected.
package parse

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
)

// MessageIDParams are the flags of parse-wal-message-id.
type MessageIDParams struct {
	framework.ParamBase `use:"parse-wal-message-id" desc:"decode a message id from a log line or a listing in every WAL and form it can be (text, hex or base64 bytes, ledger:entry:partition:batch, segment:entry, offset)" example:"parse-wal-message-id --id CAEQKQ=="`
	ID                  string `name:"id" required:"true" placeholder:"ID" complete:"-" desc:"the message id as printed"`
	WAL                 string `name:"wal" enum:"woodpecker,pulsar,kafka,rocksmq" complete:"-" desc:"only this WAL (default: every WAL)"`
	framework.Output
}

// TSParams are the flags of parse-ts.
type TSParams struct {
	framework.ParamBase `use:"parse-ts" desc:"decode a Milvus TSO (hybrid timestamp: physical milliseconds << 18 | logical) into its time and logical counter" example:"parse-ts --ts 470817350615040000"`
	TS                  string `name:"ts" required:"true" placeholder:"TSO" complete:"-" desc:"the timestamp as printed (a time tick, a checkpoint's timestamp)"`
	framework.Output
}

// Commands are the parse commands.
func Commands() []*framework.Command {
	return []*framework.Command{
		framework.Read(struct{}{}, func(_ context.Context, _ struct{}, p *MessageIDParams, _ framework.IO) (framework.Result, error) {
			only := commonpb.WALName_Unknown
			if p.WAL != "" {
				only, _ = msgid.Parse(p.WAL)
			}
			res := &IDResult{Input: p.ID, Readings: []IDReading{}}
			for _, r := range msgid.ParseAny(p.ID, only) {
				b := r.ID.Bytes()
				res.Readings = append(res.Readings, IDReading{WAL: msgid.Name(r.WAL), ReadAs: r.Form, Human: r.ID.Human(),
					Text: r.ID.Text(), Hex: hex.EncodeToString(b), Base64: base64.StdEncoding.EncodeToString(b), Earliest: r.ID.IsEarliest()})
			}
			if len(res.Readings) == 0 {
				return nil, framework.Usagef("parse-wal-message-id: %q is no message id of %s in any form (text, hex or base64 bytes, human)", p.ID, orEvery(p.WAL))
			}
			return res, nil
		}),
		framework.Read(struct{}{}, func(_ context.Context, _ struct{}, p *TSParams, _ framework.IO) (framework.Result, error) {
			ts, err := strconv.ParseUint(p.TS, 10, 64)
			if err != nil {
				return nil, framework.Usagef("parse-ts: --ts %q is not a TSO (a decimal number)", p.TS)
			}
			t, logical, ok := models.SplitTSO(ts)
			if !ok {
				return nil, framework.Usagef("parse-ts: %d is no time Milvus wrote (0, the dropped-channel marker MaxUint64, or past year 9999)", ts)
			}
			return &TSResult{TS: ts, Time: t.Format(time.RFC3339Nano), Logical: logical, UnixMillis: t.UnixMilli()}, nil
		}),
	}
}

func orEvery(wal string) string {
	if wal == "" {
		return "any WAL"
	}
	return wal
}

// IDReading is one way the id decodes, with its other forms.
type IDReading struct {
	WAL      string `json:"wal"`
	ReadAs   string `json:"read_as"`
	Human    string `json:"human"`
	Text     string `json:"text"`
	Hex      string `json:"hex"`
	Base64   string `json:"base64"`
	Earliest bool   `json:"earliest"`
}

// IDResult is what parse-wal-message-id prints.
type IDResult struct {
	Input    string      `json:"input"`
	Readings []IDReading `json:"readings"`
}

func (r *IDResult) JSON() any { return r }

// Table writes one block a reading (the forms are as wide as the id: no
// table to cut at 80 columns).
func (r *IDResult) Table(w io.Writer) error {
	for i, x := range r.Readings {
		if i > 0 {
			fmt.Fprintln(w)
		}
		earliest := ""
		if x.Earliest {
			earliest = " (the earliest id: what a reset writes)"
		}
		fmt.Fprintf(w, "%s, read as %s: %s%s\n", x.WAL, x.ReadAs, framework.EscapeText(x.Human), earliest)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "  text (MessageID.id)\t%s\n", x.Text)
		fmt.Fprintf(tw, "  bytes hex (msgID)\t%s\n", x.Hex)
		fmt.Fprintf(tw, "  bytes base64\t%s\n", x.Base64)
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(r.Readings) > 1 {
		fmt.Fprintf(w, "\n%d readings: a log line does not say its WAL; mq.type names the one in use (--wal keeps one)\n", len(r.Readings))
	}
	return nil
}

func (r *IDResult) Lines(w io.Writer) error {
	for _, x := range r.Readings {
		if err := framework.WriteLine(w, "wal", x.WAL, "read_as", x.ReadAs, "human", x.Human, "text", x.Text, "hex", x.Hex, "base64", x.Base64, "earliest", x.Earliest); err != nil {
			return err
		}
	}
	return nil
}

// TSResult is what parse-ts prints.
type TSResult struct {
	TS         uint64 `json:"ts"`
	Time       string `json:"time"`
	UnixMillis int64  `json:"unix_millis"`
	Logical    uint64 `json:"logical"`
}

func (r *TSResult) JSON() any { return r }

func (r *TSResult) Table(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%d: %s (unix ms %d), logical %d\n", r.TS, r.Time, r.UnixMillis, r.Logical)
	return err
}

func (r *TSResult) Lines(w io.Writer) error {
	return framework.WriteLine(w, "ts", r.TS, "time", r.Time, "unix_millis", r.UnixMillis, "logical", r.Logical)
}
