package apply

import (
	"strings"
	"testing"
)

// Issue 24 case 6: a key with a newline or another control character
// cannot forge a line of heron's messages: every message that quotes a key
// escapes it.
func TestKeysEscapedInMessages(t *testing.T) {
	forged := "by-dev/meta/k\nSTOPPED: 0 of 0 keys written\x1b[2J"
	msgs := map[string]string{
		"conflict":       (&ConflictError{Key: forged, Written: 1, Total: 2}).Error(),
		"conflict, none": (&ConflictError{Key: forged}).Error(),
		"live":           (&LiveError{Guard: "g", Key: forged, Role: "x\ny", Lease: 1}).Error(),
		"refused txn":    (&RefusedTxnError{Txn: 1, Keys: 1, First: forged, What: "w", Err: errTest}).Error(),
	}
	for name, msg := range msgs {
		if strings.ContainsAny(msg, "\n\x1b") {
			t.Errorf("%s: a control character of the key is in the message: %q", name, msg)
		}
		if !strings.Contains(msg, `k\nSTOPPED`) {
			t.Errorf("%s: the key is not shown escaped: %q", name, msg)
		}
	}
}

var errTest = testError("etcd said no")

type testError string

func (e testError) Error() string { return string(e) }
