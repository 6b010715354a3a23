package webhooks

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The spec's own example (standard-webhooks/libraries test vectors): this secret, id,
// timestamp and body sign as this signature.
func TestSignSpecVector(t *testing.T) {
	const (
		secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
		id     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
		body   = `{"test": 2432232314}`
		want   = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	)
	h, err := Sign([]string{secret}, id, time.Unix(1614265330, 0), []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if h.Signature != want || h.Timestamp != "1614265330" || h.ID != id {
		t.Fatalf("signed %+v, want signature %s at 1614265330", h, want)
	}
}

func TestNewSecret(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		s, err := NewSecret()
		if err != nil {
			t.Fatal(err)
		}
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, SecretPrefix))
		if !strings.HasPrefix(s, "whsec_") || err != nil || len(key) < 24 {
			t.Fatalf("secret %q: not whsec_ and the base64 of at least 24 bytes (%v)", s, err)
		}
		if CheckSecret(s) != nil || seen[s] {
			t.Fatalf("secret %q refused or made twice", s)
		}
		seen[s] = true
	}
	for _, bad := range []string{"", "whsec_", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_" + base64.StdEncoding.EncodeToString(make([]byte, 23)), "whsec_not*base64", "whsec_" + base64.StdEncoding.EncodeToString(make([]byte, 65))} {
		if CheckSecret(bad) == nil {
			t.Errorf("secret %q accepted", bad)
		}
		if _, err := Sign([]string{bad}, "msg_1", time.Now(), nil); !errors.Is(err, ErrBadSecret) {
			t.Errorf("Sign with secret %q: %v, want ErrBadSecret", bad, err)
		}
	}
	id, err := NewMessageID()
	if err != nil || !validID(id) || !strings.HasPrefix(id, "msg_") {
		t.Fatalf("message id %q (%v)", id, err)
	}
}

func header(h Headers) http.Header {
	hh := http.Header{}
	h.Set(hh)
	return hh
}

func TestSignAndVerify(t *testing.T) {
	oldSecret, _ := NewSecret()
	newSecret, _ := NewSecret()
	other, _ := NewSecret()
	body := []byte(`{"type":"transfer","removed":false,"note":"é ✓ 🦀"}`)
	now := time.Now()

	one, err := Sign([]string{oldSecret}, "msg_one", now, body)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Fields(one.Signature)); n != 1 {
		t.Fatalf("one secret gave %d signatures", n)
	}
	if err := Verify([]string{oldSecret}, header(one), body, now); err != nil {
		t.Fatalf("own signature refused: %v", err)
	}

	// A rotation: both secrets sign; a receiver with either accepts.
	both, err := Sign([]string{newSecret, oldSecret}, "msg_rot", now, body)
	if err != nil {
		t.Fatal(err)
	}
	sigs := strings.Fields(both.Signature)
	if len(sigs) != 2 || !strings.HasPrefix(sigs[0], "v1,") || !strings.HasPrefix(sigs[1], "v1,") {
		t.Fatalf("rotation signature %q: want two v1 signatures", both.Signature)
	}
	for _, s := range []string{newSecret, oldSecret} {
		if err := Verify([]string{s}, header(both), body, now); err != nil {
			t.Errorf("rotated message refused by one of its secrets: %v", err)
		}
	}

	cases := []struct {
		name    string
		secrets []string
		h       http.Header
		body    []byte
		now     time.Time
		want    error
	}{
		{"tampered body", []string{oldSecret}, header(one), []byte(strings.Replace(string(body), "false", "true", 1)), now, ErrNoMatchingSignature},
		{"wrong secret", []string{other}, header(one), body, now, ErrNoMatchingSignature},
		{"10 minutes old", []string{oldSecret}, header(one), body, now.Add(10 * time.Minute), ErrTimestampTooOld},
		{"10 minutes ahead", []string{oldSecret}, header(one), body, now.Add(-10 * time.Minute), ErrTimestampTooNew},
		{"no signature", []string{oldSecret}, func() http.Header { h := header(one); h.Del(HeaderSignature); return h }(), body, now, ErrMissingHeaders},
		{"other id", []string{oldSecret}, func() http.Header { h := header(one); h.Set(HeaderID, "msg_two"); return h }(), body, now, ErrNoMatchingSignature},
		{"other timestamp", []string{oldSecret}, func() http.Header {
			h := header(one)
			h.Set(HeaderTimestamp, strconv.FormatInt(now.Unix()+1, 10))
			return h
		}(), body, now, ErrNoMatchingSignature},
		{"timestamp not seconds", []string{oldSecret}, func() http.Header {
			h := header(one)
			h.Set(HeaderTimestamp, now.Format(time.RFC3339))
			return h
		}(), body, now, ErrBadTimestamp},
		{"v2 only", []string{oldSecret}, func() http.Header {
			h := header(one)
			h.Set(HeaderSignature, strings.Replace(one.Signature, "v1,", "v2,", 1))
			return h
		}(), body, now, ErrNoMatchingSignature},
	}
	for _, c := range cases {
		if err := Verify(c.secrets, c.h, c.body, c.now); !errors.Is(err, c.want) {
			t.Errorf("%s: Verify = %v, want %v", c.name, err, c.want)
		}
	}
	// Within the tolerance either way.
	for _, d := range []time.Duration{-4 * time.Minute, 4 * time.Minute} {
		if err := Verify([]string{oldSecret}, header(one), body, now.Add(d)); err != nil {
			t.Errorf("verified %v later: %v", d, err)
		}
	}
	for _, bad := range []string{"", "a.b", "a b", "é"} {
		if _, err := Sign([]string{oldSecret}, bad, now, body); !errors.Is(err, ErrBadID) {
			t.Errorf("Sign with id %q: %v, want ErrBadID", bad, err)
		}
	}
}
