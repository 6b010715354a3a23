package rpcserver

import (
	"bytes"
	"encoding/json"

	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// EventFilter is the parsed filter of starknet_getEvents.
type EventFilter struct {
	FromBlock, ToBlock json.RawMessage   // BLOCK_IDs; nil when absent
	Address            string            // canonical felt; "" matches any contract
	Keys               []map[string]bool // per position the accepted canonical keys; empty = any
	ChunkSize          int
	ContinuationToken  string // "" when absent
}

// ParseEventFilter reads the params of starknet_getEvents ({"filter": {...}} or
// [{...}]), enforcing the page size and key-count limits with the spec's errors.
func ParseEventFilter(params json.RawMessage, maxChunk, maxKeys int) (*EventFilter, error) {
	ps, err := Params(params, []string{"filter"}, 1)
	if err != nil {
		return nil, err
	}
	var raw struct {
		FromBlock         json.RawMessage `json:"from_block"`
		ToBlock           json.RawMessage `json:"to_block"`
		Address           *string         `json:"address"`
		Keys              [][]string      `json:"keys"`
		ChunkSize         *int            `json:"chunk_size"`
		ContinuationToken *string         `json:"continuation_token"`
	}
	if err := json.Unmarshal(ps[0], &raw); err != nil {
		return nil, InvalidParams("filter: %v", err)
	}
	if raw.ChunkSize == nil || *raw.ChunkSize < 1 {
		return nil, InvalidParams("filter.chunk_size must be a positive integer")
	}
	if *raw.ChunkSize > maxChunk {
		return nil, rpc.ErrPageSizeTooBig
	}
	f := &EventFilter{FromBlock: nullToNil(raw.FromBlock), ToBlock: nullToNil(raw.ToBlock), ChunkSize: *raw.ChunkSize}
	if raw.ContinuationToken != nil {
		f.ContinuationToken = *raw.ContinuationToken
	}
	if raw.Address != nil {
		if f.Address, err = CanonicalFelt(*raw.Address); err != nil {
			return nil, InvalidParams("filter.address: %v", err)
		}
	}
	total := 0
	for i, alternatives := range raw.Keys {
		total += len(alternatives)
		if total > maxKeys {
			return nil, rpc.ErrTooManyKeysInFilter
		}
		set := map[string]bool{}
		for _, k := range alternatives {
			c, err := CanonicalFelt(k)
			if err != nil {
				return nil, InvalidParams("filter.keys[%d]: %v", i, err)
			}
			set[c] = true
		}
		f.Keys = append(f.Keys, set)
	}
	return f, nil
}

func nullToNil(raw json.RawMessage) json.RawMessage {
	if raw == nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	return raw
}

// Match applies the filter to an event given by canonical felts. Key position i
// matches when its set is empty or holds the event's i-th key; an event with
// fewer keys than a non-empty position does not match.
func (f *EventFilter) Match(from string, keys []string) bool {
	if f.Address != "" && from != f.Address {
		return false
	}
	for i, set := range f.Keys {
		if len(set) == 0 {
			continue
		}
		if i >= len(keys) || !set[keys[i]] {
			return false
		}
	}
	return true
}
