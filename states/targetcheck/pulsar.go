package targetcheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/heron-shell/heron/models"
)

// PulsarConfig is how to reach the Pulsar target's admin API.
type PulsarConfig struct {
	// Admin is the admin API's base URL (http://host:webport).
	Admin             string
	Tenant, Namespace string
	// Token is sent as a bearer token when not empty.
	Token string
	// Timeout bounds each request (0: DefaultTimeout).
	Timeout time.Duration
}

// maxStatsBytes bounds an internalStats answer (it lists ledgers and
// cursors; a few MiB at most).
const maxStatsBytes = 32 << 20

// internalStats is the part of Pulsar's PersistentTopicInternalStats the
// check reads.
type internalStats struct {
	NumberOfEntries *int64 `json:"numberOfEntries"`
}

// CheckPulsar reports, for each pchannel, its topic
// persistent://{tenant}/{namespace}/{pchannel} on the Pulsar target, from
// GET /admin/v2/persistent/{tenant}/{namespace}/{pchannel}/internalStats:
// 404 is absent, numberOfEntries 0 empty, more not empty. Any other answer
// (401, 403, 500, not JSON) or no answer within the timeout is an error.
func CheckPulsar(ctx context.Context, c PulsarConfig, pchannels []string) ([]Topic, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	client := &http.Client{Timeout: timeout}
	out := make([]Topic, len(pchannels))
	errs := make([]error, len(pchannels))
	// A few requests at a time: an instance has up to a few hundred
	// pchannels, each one GET; the first error in pchannel order is reported.
	sem := make(chan struct{}, pulsarParallel)
	var wg sync.WaitGroup
	for i, pc := range pchannels {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			rctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			out[i], errs[i] = pulsarTopic(rctx, client, c, pc, timeout)
		}()
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, err
	}
	return out, nil
}

// pulsarParallel is how many internalStats requests run at once.
const pulsarParallel = 8

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func pulsarTopic(ctx context.Context, client *http.Client, c PulsarConfig, pc string, timeout time.Duration) (Topic, error) {
	t := Topic{PChannel: pc, Topic: models.PulsarTopic(c.Tenant, c.Namespace, pc)}
	u := c.Admin + "/admin/v2/persistent/" + url.PathEscape(c.Tenant) + "/" + url.PathEscape(c.Namespace) + "/" + url.PathEscape(pc) + "/internalStats"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return t, fmt.Errorf("pulsar admin %s: %w", c.Admin, err)
	}
	req.Header.Set("Accept", "application/json")
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
			return t, fmt.Errorf("pulsar admin %s did not answer within %s (GET %s): check --pulsar-admin and the network (nothing was written)", c.Admin, timeout, req.URL.Path)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return t, fmt.Errorf("pulsar admin %s is unreachable (GET %s): %v; check --pulsar-admin and the network (nothing was written)", c.Admin, req.URL.Path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxStatsBytes))
	if err != nil {
		return t, fmt.Errorf("pulsar admin %s: GET %s: reading the answer: %w", c.Admin, req.URL.Path, err)
	}
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		t.State = Absent
		return t, nil
	case http.StatusUnauthorized, http.StatusForbidden:
		hint := "give a token with --pulsar-token-file"
		if c.Token != "" {
			hint = "the token of --pulsar-token-file was refused"
		}
		return t, fmt.Errorf("pulsar admin %s: GET %s: %s: %s", c.Admin, req.URL.Path, resp.Status, hint)
	default:
		return t, fmt.Errorf("pulsar admin %s: GET %s: %s: %s", c.Admin, req.URL.Path, resp.Status, snippet(body))
	}
	var st internalStats
	if err := json.Unmarshal(body, &st); err != nil {
		return t, fmt.Errorf("pulsar admin %s: GET %s: the answer is not internalStats JSON: %v", c.Admin, req.URL.Path, err)
	}
	if st.NumberOfEntries == nil {
		return t, fmt.Errorf("pulsar admin %s: GET %s: the answer has no numberOfEntries: %s", c.Admin, req.URL.Path, snippet(body))
	}
	t.Entries = st.NumberOfEntries
	t.State = Empty
	if *st.NumberOfEntries > 0 {
		t.State = NotEmpty
	}
	return t, nil
}

// snippet is the start of a body for an error message, printable.
func snippet(b []byte) string {
	const max = 200
	s := []rune(string(b))
	if len(s) > max {
		return fmt.Sprintf("%q...", string(s[:max]))
	}
	return fmt.Sprintf("%q", string(s))
}
