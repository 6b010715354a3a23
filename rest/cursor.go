package rest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// listCursor is the position that a cursor-style list (nft-items, nft-events,
// nft-contract-balance) resumes at. It travels to the client as an opaque, signed string.
//
// Walking forward uses the resolver connection's own cursor (After), which is stable
// while new items arrive. Walking back uses the offset: the previous page is the Limit
// items before Offset, capped at Until so that the page never overlaps the page the
// client came from.
type listCursor struct {
	Op     string `json:"k"`           // the operation the cursor belongs to
	Offset int    `json:"o"`           // items before the page
	After  string `json:"a,omitempty"` // resolver cursor ending the previous item
	Until  int    `json:"u,omitempty"` // prev pages: the offset of the page the client came from
}

// startCursor is the default the reference documents for `cursor`; it means "from the start".
const startCursor = "ffffffffffffffffffffff"

// maxOffset bounds offsets read from cursors, far above any real list.
const maxOffset = 1 << 40

// cursorCodec signs cursors so that a forged or garbled one is told apart (400) from a
// real one. Every replica behind a load balancer needs the same key.
type cursorCodec struct {
	key []byte
}

func (c cursorCodec) encode(cur listCursor) string {
	payload, _ := json.Marshal(cur)
	body := base64.RawURLEncoding.EncodeToString(payload)
	return body + "." + base64.RawURLEncoding.EncodeToString(c.sign(body))
}

func (c cursorCodec) sign(body string) []byte {
	mac := hmac.New(sha256.New, c.key)
	mac.Write([]byte(body))
	return mac.Sum(nil)[:16]
}

// decode checks the signature and the operation; "" and the reference's default cursor
// are the start of the list.
func (c cursorCodec) decode(op, s string) (listCursor, error) {
	if s == "" || s == startCursor {
		return listCursor{Op: op}, nil
	}
	body, sig, ok := strings.Cut(s, ".")
	if !ok {
		return listCursor{}, badRequest("cursor: not a cursor returned by this API")
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, c.sign(body)) {
		return listCursor{}, badRequest("cursor: not a cursor returned by this API")
	}
	payload, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return listCursor{}, badRequest("cursor: not a cursor returned by this API")
	}
	var cur listCursor
	if err := json.Unmarshal(payload, &cur); err != nil || cur.Offset < 0 || cur.Offset > maxOffset ||
		cur.Until < 0 || cur.Until > maxOffset {
		return listCursor{}, badRequest("cursor: not a cursor returned by this API")
	}
	if cur.Op != op {
		return listCursor{}, badRequest("cursor: belongs to another list")
	}
	return cur, nil
}
