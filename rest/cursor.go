package rest

import "github.com/starkgraph/starkgraph/cursor"

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

// cursorCodec seals REST list positions with the process's cursor codec (package
// cursor): signed, and bound to the operation, so that a forged, garbled or foreign cursor
// is a 400 naming the parameter, never a 500.
type cursorCodec struct{}

func (cursorCodec) encode(cur listCursor) string { return cursor.Default().Seal("rest:"+cur.Op, cur) }

// decode checks the signature and the operation; "" and the reference's default cursor
// are the start of the list.
func (cursorCodec) decode(op, s string) (listCursor, error) {
	if s == "" || s == startCursor {
		return listCursor{Op: op}, nil
	}
	var cur listCursor
	scope, err := cursor.Default().Open("rest:"+op, s, &cur)
	if err != nil || scope != "rest:"+op || cur.Op != op || cur.Offset < 0 || cur.Offset > maxOffset ||
		cur.Until < 0 || cur.Until > maxOffset || len(cur.After) > 512 {
		return listCursor{}, badRequest("cursor: not a cursor returned by this API for this list")
	}
	return cur, nil
}
