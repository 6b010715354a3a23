package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Endpoint is where one webhook's messages go.
type Endpoint struct {
	URL string
	// Secrets sign every message: one, or during a rotation the new one then the old one.
	Secrets []string
}

// Message is one message of a webhook: its id, the same on every attempt, and its JSON body.
type Message struct {
	ID   string
	Body []byte
}

// Outcome classifies an attempt for the delivery loop.
type Outcome int

const (
	// Delivered: the receiver answered 2xx; the message is done.
	Delivered Outcome = iota
	// Retry: a failure to try again after Backoff: any status but 2xx, 410 and a 429 or
	// 503 with Retry-After (redirects included: they are not followed), a network error,
	// a timeout, an address or URL refused (its name may resolve elsewhere later).
	Retry
	// SlowDown: 429 or 503 with a Retry-After; try again after Attempt.RetryAfter.
	SlowDown
	// Disable: 410 Gone; the receiver asks for no more; disable the webhook.
	Disable
)

func (o Outcome) String() string {
	switch o {
	case Delivered:
		return "delivered"
	case Retry:
		return "retry"
	case SlowDown:
		return "slow-down"
	case Disable:
		return "disable"
	}
	return "outcome(" + strconv.Itoa(int(o)) + ")"
}

// Attempt is what one delivery attempt did: what a delivery log records.
type Attempt struct {
	Outcome Outcome
	Start   time.Time
	Latency time.Duration // from the request's start to the answer's body read (or the failure)
	Status  int           // the HTTP status; 0 if no answer
	// Body is the first Options.RecordBytes of the answer's body; Truncated if it was longer.
	Body      []byte
	Truncated bool
	// RetryAfter is the receiver's delay for SlowDown, capped at Options.MaxRetryAfter.
	RetryAfter time.Duration
	// Location is a redirect's target, recorded, not followed.
	Location string
	// Err says why an attempt failed: a network error, a timeout, a refused address
	// (errors.Is ErrForbiddenAddress) or URL (ErrBadURL), or an unsuccessful status.
	Err error
}

// Sender delivers messages; it is safe for concurrent use.
type Sender struct {
	o      Options
	client *http.Client
	now    func() time.Time
}

// NewSender returns a Sender with options o (see Options for the defaults).
func NewSender(o Options) *Sender {
	o = o.withDefaults()
	return &Sender{o: o, client: NewClient(o), now: time.Now}
}

// Client is the Sender's HTTP client (the checking dialer, no redirects).
func (s *Sender) Client() *http.Client { return s.client }

// ErrStatus is wrapped by Attempt.Err when the receiver answered but not with 2xx.
var ErrStatus = errors.New("webhooks: unsuccessful status")

// Deliver makes one attempt to deliver msg to ep: a POST of the body, signed now with every
// secret of ep, classified as Outcome says. It never retries by itself and never follows a
// redirect; the time it takes is bounded by Options.AttemptTimeout and ctx.
func (s *Sender) Deliver(ctx context.Context, ep Endpoint, msg Message) (a Attempt) {
	a = Attempt{Outcome: Retry, Start: s.now()}
	defer func() { a.Latency = s.now().Sub(a.Start) }()
	u, err := CheckURL(ep.URL, s.o)
	if err != nil {
		a.Err = err
		return a
	}
	h, err := Sign(ep.Secrets, msg.ID, a.Start, msg.Body)
	if err != nil {
		a.Err = err
		return a
	}
	ctx, cancel := context.WithTimeout(ctx, s.o.AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(msg.Body))
	if err != nil {
		a.Err = err
		return a
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", s.o.UserAgent)
	h.Set(req.Header)
	resp, err := s.client.Do(req)
	if err != nil {
		a.Err = err
		return a
	}
	a.Status = resp.StatusCode
	// Read at most ReadLimit; keep the first RecordBytes. An answer longer than ReadLimit
	// is cut, and closing its body unread closes its connection.
	var rec bytes.Buffer
	n, err := io.Copy(&limitedBuffer{buf: &rec, max: s.o.RecordBytes}, io.LimitReader(resp.Body, s.o.ReadLimit+1))
	resp.Body.Close()
	a.Body, a.Truncated = rec.Bytes(), n > int64(s.o.RecordBytes)
	bodyErr := err

	switch st := resp.StatusCode; {
	case st >= 200 && st < 300:
		// The receiver said yes; a body cut short or failing to read does not change it.
		a.Outcome = Delivered
		return a
	case st == http.StatusGone:
		a.Outcome = Disable
	case st == http.StatusTooManyRequests || st == http.StatusServiceUnavailable:
		if d, ok := retryAfter(resp.Header.Get("Retry-After"), s.now()); ok {
			a.Outcome, a.RetryAfter = SlowDown, min(d, s.o.MaxRetryAfter)
		}
	case st >= 300 && st < 400:
		a.Location = resp.Header.Get("Location")
	}
	a.Err = fmt.Errorf("%w: %s", ErrStatus, resp.Status)
	if a.Location != "" {
		a.Err = fmt.Errorf("%w: %s to %q (redirects are not followed)", ErrStatus, resp.Status, a.Location)
	}
	if bodyErr != nil && !errors.Is(bodyErr, context.Canceled) {
		a.Err = errors.Join(a.Err, fmt.Errorf("reading the answer: %w", bodyErr))
	}
	return a
}

// limitedBuffer keeps the first max bytes written to it and discards the rest.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// retryAfter parses a Retry-After header: delay-seconds or an HTTP-date (RFC 9110 10.2.3).
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		if n > int64(365*24*time.Hour/time.Second) {
			n = int64(365 * 24 * time.Hour / time.Second)
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
