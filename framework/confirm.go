package framework

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// terminalConfirm asks on the terminal: it writes the question to out and
// reads one line from in, in line mode (polling a terminal, so that an
// interrupt leaves no read behind). y or yes, in any case, is a yes;
// anything else, end of input or an interrupt is a no.
func terminalConfirm(in io.Reader, out io.Writer) Confirm {
	return func(ctx context.Context, question string) (bool, error) {
		restore := lineMode(in)
		defer restore()
		fmt.Fprint(out, TerminalText(question))
		var a string
		interrupted := false
		if r, ok := pollingReader(ctx, in); ok {
			a = readLine(r)
			interrupted = ctx.Err() != nil
		} else {
			answer := make(chan string, 1)
			go func() { answer <- readLine(in) }()
			select {
			case <-ctx.Done():
				interrupted = true
			case a = <-answer:
			}
		}
		if interrupted {
			fmt.Fprintln(out)
			return false, nil
		}
		a = strings.ToLower(strings.TrimSpace(a))
		return a == "y" || a == "yes", nil
	}
}

// readLine reads up to a newline (or a carriage return: a terminal left in
// raw mode) a byte at a time, so that nothing after the
// answer is taken from the terminal's input.
func readLine(in io.Reader) string {
	var b strings.Builder
	buf := make([]byte, 1)
	for {
		n, err := in.Read(buf)
		if n == 1 {
			if buf[0] == '\n' || buf[0] == '\r' {
				return b.String()
			}
			b.WriteByte(buf[0])
		}
		if err != nil {
			return b.String()
		}
	}
}
