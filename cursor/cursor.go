// Package cursor is the one codec of the opaque cursors both APIs hand out (GraphQL
// connections' `after`, REST's `cursor`): a JSON payload, base64url, and an HMAC-SHA256
// tag over the payload and the list it belongs to (an operation and its sort order). A
// cursor altered by a client, made up, or taken from another list does not verify, so
// what a handler decodes is always a position this server wrote.
//
// The key is the server's cursor secret: generated at first start and kept in the database
// (LoadOrCreateSecret), or given to every replica by --cursor-secret.
package cursor

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/jmoiron/sqlx"
)

// AnyList is the scope of cursors valid in every list (offsets only, as REST makes from
// page numbers).
const AnyList = "*"

// maxLen bounds what is decoded: real cursors are far shorter.
const maxLen = 1024

// ErrInvalid says a cursor was not written by this server for this list.
var ErrInvalid = errors.New("not a cursor returned by this API for this list")

// Codec signs and opens cursors with one key.
type Codec struct{ key []byte }

// New returns a codec keyed by secret.
func New(secret []byte) *Codec { return &Codec{key: append([]byte(nil), secret...)} }

// current is the codec of the process: a development key until the server sets its own
// (tests and tools use that one).
var current atomic.Pointer[Codec]

func init() { current.Store(New([]byte("starkgraph development cursor secret"))) }

// SetDefault makes c the codec of the process; serve and dev call it at start.
func SetDefault(c *Codec) { current.Store(c) }

// Default is the process's codec.
func Default() *Codec { return current.Load() }

// Seal encodes v as a cursor of list.
func (c *Codec) Seal(list string, v any) string {
	payload, err := json.Marshal(v)
	if err != nil {
		panic("cursor: " + err.Error()) // only our own position types are sealed
	}
	body := base64.RawURLEncoding.EncodeToString(payload)
	return body + "." + base64.RawURLEncoding.EncodeToString(c.tag(list, body))
}

// Open verifies s as a cursor of list (or of AnyList) and decodes it into v. It reports
// which scope the cursor had, so that a caller can refuse list-specific fields in an
// AnyList cursor.
func (c *Codec) Open(list, s string, v any) (scope string, err error) {
	if len(s) > maxLen {
		return "", ErrInvalid
	}
	body, sig, ok := strings.Cut(s, ".")
	if !ok {
		return "", ErrInvalid
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil {
		return "", ErrInvalid
	}
	switch {
	case hmac.Equal(got, c.tag(list, body)):
		scope = list
	case hmac.Equal(got, c.tag(AnyList, body)):
		scope = AnyList
	default:
		return "", ErrInvalid
	}
	payload, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil || json.Unmarshal(payload, v) != nil {
		return "", ErrInvalid
	}
	return scope, nil
}

func (c *Codec) tag(list, body string) []byte {
	mac := hmac.New(sha256.New, c.key)
	mac.Write([]byte(list))
	mac.Write([]byte{0})
	mac.Write([]byte(body))
	return mac.Sum(nil)[:16]
}

// LoadOrCreateSecret returns the cursor secret kept in the database, creating it (32
// random bytes) on the first start; every replica on the database reads the same one.
func LoadOrCreateSecret(ctx context.Context, db *sqlx.DB) ([]byte, error) {
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO server_secrets (name, value) VALUES ('cursor', $1)
		ON CONFLICT (name) DO NOTHING`, fresh); err != nil {
		return nil, err
	}
	var secret []byte
	err := db.GetContext(ctx, &secret, `SELECT value FROM server_secrets WHERE name = 'cursor'`)
	return secret, err
}
