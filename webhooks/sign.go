package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The Standard Webhooks wire format (https://www.standardwebhooks.com/, spec v1):
//
//	webhook-id:        the message's id, the same on every retry (receivers deduplicate on it)
//	webhook-timestamp: the attempt's time, integer seconds since the Unix epoch
//	webhook-signature: space-separated "v1,<base64(HMAC-SHA256(key, id + "." + timestamp + "." + body))>"
//
// A secret is "whsec_" + standard base64 (padded) of 24 to 64 random bytes; the HMAC key is
// the decoded bytes. During a rotation both the new and the old secret sign, so the header
// holds two v1 signatures and a receiver holding either secret accepts.

const (
	// HeaderID, HeaderTimestamp and HeaderSignature are the Standard Webhooks headers.
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"

	// SecretPrefix starts every secret.
	SecretPrefix = "whsec_"
	// SecretBytes is the length of the keys NewSecret makes.
	SecretBytes = 32
	// MinSecretBytes and MaxSecretBytes bound a secret's key, as the spec does.
	MinSecretBytes = 24
	MaxSecretBytes = 64

	// Tolerance is how far a message's timestamp may be from the receiver's clock, either
	// way: the spec's (and the standardwebhooks libraries') five minutes.
	Tolerance = 5 * time.Minute
)

// Errors of signing and verifying; Verify's errors wrap one of the Err* below.
var (
	ErrBadSecret           = errors.New("webhooks: a secret must be " + SecretPrefix + " and the base64 of 24 to 64 bytes")
	ErrNoSecret            = errors.New("webhooks: no signing secret")
	ErrBadID               = errors.New("webhooks: a message id must be 1 to 255 printable ASCII characters, no spaces or dots")
	ErrMissingHeaders      = errors.New("webhooks: missing webhook-id, webhook-timestamp or webhook-signature")
	ErrBadTimestamp        = errors.New("webhooks: webhook-timestamp is not integer seconds")
	ErrTimestampTooOld     = errors.New("webhooks: message timestamp too old")
	ErrTimestampTooNew     = errors.New("webhooks: message timestamp too new")
	ErrNoMatchingSignature = errors.New("webhooks: no matching signature")
)

// NewSecret returns a new secret: "whsec_" and the base64 of SecretBytes random bytes.
func NewSecret() (string, error) {
	key := make([]byte, SecretBytes)
	if _, err := rand.Read(key); err != nil {
		return "", err
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(key), nil
}

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewMessageID returns a random message id, "msg_" and 26 base32 characters (128 bits).
// The delivery loop may instead derive ids from what a message is about; either way one
// message keeps its id across retries.
func NewMessageID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "msg_" + strings.ToLower(idEncoding.EncodeToString(b)), nil
}

// secretKey decodes a secret into its HMAC key.
func secretKey(secret string) ([]byte, error) {
	enc, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, ErrBadSecret
	}
	key, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || len(key) < MinSecretBytes || len(key) > MaxSecretBytes {
		return nil, ErrBadSecret
	}
	return key, nil
}

// CheckSecret says whether secret is one Sign accepts.
func CheckSecret(secret string) error {
	_, err := secretKey(secret)
	return err
}

// validID: the id is written into a header and into the signed content before a ".", so a
// sender keeps to printable ASCII without spaces or dots (receivers accept any id).
func validID(id string) bool {
	if len(id) == 0 || len(id) > 255 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c >= 0x7f || c == '.' {
			return false
		}
	}
	return true
}

// Headers are the three Standard Webhooks headers of one attempt.
type Headers struct {
	ID        string
	Timestamp string
	Signature string
}

// Set writes the headers into h.
func (s Headers) Set(h http.Header) {
	// The spec's names are lower case; http.Header canonicalizes them on the wire
	// (Webhook-Id), which receivers match case-insensitively, as HTTP requires.
	h.Set(HeaderID, s.ID)
	h.Set(HeaderTimestamp, s.Timestamp)
	h.Set(HeaderSignature, s.Signature)
}

func signature(key []byte, id, ts string, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Sign signs one attempt of a message: one v1 signature per secret, in the order given
// (during a rotation: the new secret, then the old one). ts is the attempt's time, so a
// retry days later is signed anew with its own timestamp and the same id.
func Sign(secrets []string, id string, ts time.Time, body []byte) (Headers, error) {
	if len(secrets) == 0 {
		return Headers{}, ErrNoSecret
	}
	if !validID(id) {
		return Headers{}, ErrBadID
	}
	t := strconv.FormatInt(ts.Unix(), 10)
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		key, err := secretKey(s)
		if err != nil {
			return Headers{}, err
		}
		sigs = append(sigs, "v1,"+signature(key, id, t, body))
	}
	return Headers{ID: id, Timestamp: t, Signature: strings.Join(sigs, " ")}, nil
}

// Verify checks a received message as a Go receiver would: the headers are present, the
// timestamp is within Tolerance of now, and one v1 signature of the header matches one of
// secrets (a receiver holds one secret, or two while it rotates). Signatures of other
// versions are ignored. It returns nil if the message is authentic.
func Verify(secrets []string, h http.Header, body []byte, now time.Time) error {
	id, ts, sigs := h.Get(HeaderID), h.Get(HeaderTimestamp), h.Get(HeaderSignature)
	if id == "" || ts == "" || sigs == "" {
		return ErrMissingHeaders
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: %q", ErrBadTimestamp, ts)
	}
	// Compare in seconds, without time.Duration overflowing on absurd timestamps.
	tol := int64(Tolerance / time.Second)
	switch n := now.Unix(); {
	case sec < n-tol:
		return fmt.Errorf("%w: %d s before now", ErrTimestampTooOld, n-sec)
	case sec > n+tol:
		return fmt.Errorf("%w: %d s after now", ErrTimestampTooNew, sec-n)
	}
	if len(secrets) == 0 {
		return ErrNoSecret
	}
	keys := make([][]byte, 0, len(secrets))
	for _, s := range secrets {
		key, err := secretKey(s)
		if err != nil {
			return err
		}
		keys = append(keys, key)
	}
	for _, key := range keys {
		want := []byte(signature(key, id, ts, body))
		for _, vs := range strings.Fields(sigs) {
			version, sig, ok := strings.Cut(vs, ",")
			if !ok || version != "v1" {
				continue
			}
			if hmac.Equal([]byte(sig), want) {
				return nil
			}
		}
	}
	return ErrNoMatchingSignature
}
