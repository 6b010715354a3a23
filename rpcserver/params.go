package rpcserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/starkgraph/starkgraph/starknet"
)

// Params splits raw JSON-RPC params into one raw value per name, accepting both
// positional (array) and named (object) params as Starknet nodes do. The first
// `required` names must be present; the others come back nil when absent.
func Params(raw json.RawMessage, names []string, required int) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(names))
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
	case raw[0] == '[':
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, InvalidParams("%v", err)
		}
		if len(list) > len(names) {
			return nil, InvalidParams("expected at most %d params, got %d", len(names), len(list))
		}
		copy(out, list)
	case raw[0] == '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, InvalidParams("%v", err)
		}
		for k, v := range obj {
			i := indexOf(names, k)
			if i < 0 {
				return nil, InvalidParams("unknown param %q", k)
			}
			out[i] = v
		}
	default:
		return nil, InvalidParams("params must be an array or an object")
	}
	for i := 0; i < required; i++ {
		if out[i] == nil || bytes.Equal(bytes.TrimSpace(out[i]), []byte("null")) {
			return nil, InvalidParams("missing param %q", names[i])
		}
	}
	return out, nil
}

func indexOf(names []string, k string) int {
	for i, n := range names {
		if n == k {
			return i
		}
	}
	return -1
}

// BlockID is a parsed Starknet BLOCK_ID: a tag ("latest", "pending" or its 0.9 name
// "pre_confirmed"), a number or a hash.
type BlockID struct {
	Tag    string // "latest", "pending" or "pre_confirmed"; empty when Number or Hash is set
	Hash   string // canonical felt, when given by hash
	Number uint64
	ByNum  bool
}

// ParseBlockID reads "latest" | "pending" | "pre_confirmed" | {"block_number": n} |
// {"block_hash": "0x.."}.
func ParseBlockID(raw json.RawMessage) (BlockID, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return BlockID{}, InvalidParams("missing block_id")
	}
	if raw[0] == '"' {
		var tag string
		if err := json.Unmarshal(raw, &tag); err != nil {
			return BlockID{}, InvalidParams("block_id: %v", err)
		}
		if tag != "latest" && tag != "pending" && tag != "pre_confirmed" {
			return BlockID{}, InvalidParams("block_id tag must be \"latest\", \"pending\" or \"pre_confirmed\", got %q", tag)
		}
		return BlockID{Tag: tag}, nil
	}
	var obj struct {
		Number *json.Number `json:"block_number"`
		Hash   *string      `json:"block_hash"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return BlockID{}, InvalidParams("block_id: %v", err)
	}
	switch {
	case obj.Number != nil && obj.Hash == nil:
		var n uint64
		if _, err := fmt.Sscan(obj.Number.String(), &n); err != nil || strings.ContainsAny(obj.Number.String(), ".eE-") {
			return BlockID{}, InvalidParams("block_number must be a non-negative integer")
		}
		return BlockID{Number: n, ByNum: true}, nil
	case obj.Hash != nil && obj.Number == nil:
		h, err := CanonicalFelt(*obj.Hash)
		if err != nil {
			return BlockID{}, InvalidParams("block_hash: %v", err)
		}
		return BlockID{Hash: h}, nil
	}
	return BlockID{}, InvalidParams("block_id must have exactly one of block_number, block_hash")
}

// CanonicalFelt normalises a felt given as 0x + 1..64 hex digits (any case) to the
// canonical form: 0x, lower case, no leading zeros ("0x0" for zero).
func CanonicalFelt(s string) (string, error) {
	f, err := starknet.ParseFelt(s)
	if err != nil {
		return "", err
	}
	return f.Hex(), nil
}

// FeltParam decodes a JSON string param and normalises it with CanonicalFelt.
func FeltParam(name string, raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", InvalidParams("%s must be a hex string", name)
	}
	f, err := CanonicalFelt(s)
	if err != nil {
		return "", InvalidParams("%s: %v", name, err)
	}
	return f, nil
}
