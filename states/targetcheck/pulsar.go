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
// persistent://{tenant}/{namespace}/{pchannel} on the Pulsar target. It asks
// the partitioned-topic metadata first (GET .../{pchannel}/partitions,
// {"partitions": N}): a partitioned topic's base name has no internalStats
// (404) while its data sits in {pchannel}-partition-0..N-1, so each of those
// is checked. Then GET .../internalStats: 404 is absent, numberOfEntries 0
// empty, more not empty. A 307 from a broker that does not own the topic is
// followed to its owner within the admin URL's scheme, with the token kept.
// Any other answer (401, 403, 500, not JSON) or no answer within the timeout
// is an error.
func CheckPulsar(ctx context.Context, c PulsarConfig, pchannels []string) ([]Topic, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	client, err := pulsarClient(c, timeout)
	if err != nil {
		return nil, err
	}
	a := &pulsarAdmin{c: c, client: client, timeout: timeout}
	out := make([]Topic, len(pchannels))
	errs := make([]error, len(pchannels))
	// A few requests at a time: an instance has up to a few hundred
	// pchannels, each two GETs or more; the first error in pchannel order is
	// reported.
	sem := make(chan struct{}, pulsarParallel)
	var wg sync.WaitGroup
	for i, pc := range pchannels {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = a.topic(ctx, pc)
		}()
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, err
	}
	return out, nil
}

// pulsarParallel is how many pchannels are checked at once.
const pulsarParallel = 8

// errRedirectRefused is a broker's redirect heron does not follow.
var errRedirectRefused = errors.New("a broker redirected")

// maxRedirects bounds the brokers one request is sent on to.
const maxRedirects = 5

// pulsarClient is an HTTP client that follows a broker's redirect to the
// topic's owner (Pulsar answers 307 Temporary Redirect) only within the admin
// URL's scheme, and keeps the bearer token: Go's client drops Authorization
// on a redirect to another host, which a Pulsar cluster with authentication
// answers with 401. An https admin URL never sends the token over http.
func pulsarClient(c PulsarConfig, timeout time.Duration) (*http.Client, error) {
	admin, err := url.Parse(c.Admin)
	if err != nil {
		return nil, fmt.Errorf("pulsar admin %s: %w", c.Admin, err)
	}
	return &http.Client{Timeout: timeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return fmt.Errorf("more than %d redirects", maxRedirects)
		}
		if req.URL.Scheme != admin.Scheme {
			return fmt.Errorf("%w to %s://%s, not %s like --pulsar-admin (the token would leave the scheme it was given for)", errRedirectRefused, req.URL.Scheme, req.URL.Host, admin.Scheme)
		}
		if c.Token != "" {
			req.Header.Set("Authorization", "Bearer "+c.Token)
		}
		return nil
	}}, nil
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// pulsarAdmin asks one Pulsar admin API.
type pulsarAdmin struct {
	c       PulsarConfig
	client  *http.Client
	timeout time.Duration
}

// partitionedMetadata is Pulsar's PartitionedTopicMetadata as
// GET .../{topic}/partitions returns it; 0 partitions: not partitioned.
type partitionedMetadata struct {
	Partitions *int `json:"partitions"`
}

// maxPartitions bounds the partitions checked of one topic.
const maxPartitions = 4096

func (a *pulsarAdmin) topic(ctx context.Context, pc string) (Topic, error) {
	t := Topic{PChannel: pc, Topic: models.PulsarTopic(a.c.Tenant, a.c.Namespace, pc)}
	var meta partitionedMetadata
	found, err := a.get(ctx, pc, "partitions", "partitioned-topic metadata", &meta)
	if err != nil {
		return t, err
	}
	n := 0
	if found {
		if meta.Partitions == nil || *meta.Partitions < 0 || *meta.Partitions > maxPartitions {
			return t, fmt.Errorf("pulsar admin %s: GET %s: the answer has no partition count in 0..%d", a.c.Admin, a.path(pc, "partitions"), maxPartitions)
		}
		n = *meta.Partitions
	}
	if n == 0 {
		var st internalStats
		found, err := a.get(ctx, pc, "internalStats", "internalStats", &st)
		if err != nil || !found {
			t.State = Absent
			return t, err
		}
		t.Entries = st.NumberOfEntries
		t.State = stateOf(*st.NumberOfEntries)
		return t, nil
	}
	// A partitioned topic exists once its metadata does; a partition not
	// created yet holds nothing.
	var total int64
	t.Partitions = int32(n)
	for i := range n {
		var st internalStats
		found, err := a.get(ctx, fmt.Sprintf("%s-partition-%d", pc, i), "internalStats", "internalStats", &st)
		if err != nil {
			return t, err
		}
		if found {
			total += *st.NumberOfEntries
		}
	}
	t.Entries, t.State = ptr(total), stateOf(total)
	return t, nil
}

func stateOf(entries int64) string {
	if entries > 0 {
		return NotEmpty
	}
	return Empty
}

func (a *pulsarAdmin) path(topic, what string) string {
	return "/admin/v2/persistent/" + url.PathEscape(a.c.Tenant) + "/" + url.PathEscape(a.c.Namespace) + "/" + url.PathEscape(topic) + "/" + what
}

// get asks GET {path(topic, what)} and decodes a 200 answer into v (an
// internalStats needs its numberOfEntries); found is false on 404.
func (a *pulsarAdmin) get(ctx context.Context, topic, what, kind string, v any) (found bool, err error) {
	rctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	u := a.c.Admin + a.path(topic, what)
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u, nil)
	if err != nil {
		return false, fmt.Errorf("pulsar admin %s: %w", a.c.Admin, err)
	}
	req.Header.Set("Accept", "application/json")
	if a.c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+a.c.Token)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		if rctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
			return false, fmt.Errorf("pulsar admin %s did not answer within %s (GET %s): check --pulsar-admin and the network (nothing was written)", a.c.Admin, a.timeout, req.URL.Path)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if errors.Is(err, errRedirectRefused) {
			return false, fmt.Errorf("pulsar admin %s: GET %s: %v; heron did not follow it (nothing was written)", a.c.Admin, req.URL.Path, err)
		}
		return false, fmt.Errorf("pulsar admin %s is unreachable (GET %s): %v; check --pulsar-admin and the network (nothing was written)", a.c.Admin, req.URL.Path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxStatsBytes))
	if err != nil {
		return false, fmt.Errorf("pulsar admin %s: GET %s: reading the answer: %w", a.c.Admin, req.URL.Path, err)
	}
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return false, nil
	case http.StatusUnauthorized, http.StatusForbidden:
		hint := "give a token with --pulsar-token-file"
		if a.c.Token != "" {
			hint = "the token of --pulsar-token-file was refused"
		}
		return false, fmt.Errorf("pulsar admin %s: GET %s: %s: %s", a.c.Admin, req.URL.Path, resp.Status, hint)
	default:
		return false, fmt.Errorf("pulsar admin %s: GET %s: %s: %s", a.c.Admin, req.URL.Path, resp.Status, snippet(body))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return false, fmt.Errorf("pulsar admin %s: GET %s: the answer is not %s JSON: %v", a.c.Admin, req.URL.Path, kind, err)
	}
	if st, ok := v.(*internalStats); ok && st.NumberOfEntries == nil {
		return false, fmt.Errorf("pulsar admin %s: GET %s: the answer has no numberOfEntries: %s", a.c.Admin, req.URL.Path, snippet(body))
	}
	return true, nil
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
