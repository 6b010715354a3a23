package sim

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestSmoke(t *testing.T) {
	c := New(Config{Seed: 1, Blocks: 60})
	for _, n := range []uint64{0, 1, 2, 3, 17, 45, 59} {
		b := c.block(n)
		out := encodeBlock(nil, b, c.status(n), viewReceipts)
		if !json.Valid(out) {
			t.Fatalf("block %d invalid json: %s", n, out[:2000])
		}
		su := encodeStateUpdate(nil, b)
		if !json.Valid(su) {
			t.Fatalf("su %d invalid", n)
		}
		fmt.Println(n, len(b.txs), len(out), len(b.effects))
	}
	fmt.Println(string(encodeBlock(nil, c.block(3), "ACCEPTED_ON_L2", viewReceipts))[:3000])
}
