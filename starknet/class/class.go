// Package class parses the result of starknet_getClass, Sierra (Cairo 1) and legacy
// (Cairo 0) classes alike, into one ABI model, and derives what the indexer records about a
// class: its kind, its Cairo version and whether it looks like an account, a proxy or an
// ERC-20/721/1155 token.
package class

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/starkgraph/starkgraph/starknet"
)

// Kind tells Sierra classes from legacy Cairo 0 classes.
type Kind string

const (
	KindSierra Kind = "sierra"
	KindLegacy Kind = "legacy"
)

// Class is a parsed contract class.
type Class struct {
	Kind                 Kind
	CairoVersion         int    // 1 for Sierra, 0 for legacy
	ContractClassVersion string // Sierra only, e.g. "0.1.0"
	ABI                  *ABI   // never nil; empty when the class has no ABI
	ABIRaw               string // the ABI JSON as served (Sierra: the string's content)
	EntryPoints          EntryPoints
	Flags                Flags
	Program              string          // legacy only: base64(gzip(program JSON))
	Raw                  json.RawMessage // the whole getClass result
}

// EntryPoints are the selectors a class exposes, by entry point type.
type EntryPoints struct {
	External    []starknet.Felt
	L1Handler   []starknet.Felt
	Constructor []starknet.Felt
}

// Flags are what the indexer derives about a class from its ABI and entry points.
type Flags struct {
	IsAccount bool // has __validate__ and __execute__
	IsProxy   bool // Cairo 0 __default__ entry point, or an implementation getter
	IsERC20   bool
	IsERC721  bool
	IsERC1155 bool
}

type wireEntryPoint struct {
	Selector starknet.Felt `json:"selector"`
}

type wireClass struct {
	SierraProgram        json.RawMessage `json:"sierra_program"`
	ContractClassVersion string          `json:"contract_class_version"`
	Program              *string         `json:"program"`
	EntryPointsByType    *struct {
		External    []wireEntryPoint `json:"EXTERNAL"`
		L1Handler   []wireEntryPoint `json:"L1_HANDLER"`
		Constructor []wireEntryPoint `json:"CONSTRUCTOR"`
	} `json:"entry_points_by_type"`
	ABI json.RawMessage `json:"abi"`
}

// Parse reads a getClass result. It fails on JSON that is neither a Sierra nor a legacy
// class, or whose ABI is malformed.
func Parse(raw []byte) (*Class, error) {
	var w wireClass
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("class: %w", err)
	}
	if w.EntryPointsByType == nil {
		return nil, errors.New("class: missing entry_points_by_type")
	}
	c := &Class{Raw: json.RawMessage(raw)}
	var abiJSON []byte
	switch {
	case len(w.SierraProgram) > 0:
		c.Kind, c.CairoVersion, c.ContractClassVersion = KindSierra, 1, w.ContractClassVersion
		// The Sierra ABI is a JSON document inside a JSON string.
		if len(w.ABI) > 0 && string(w.ABI) != "null" {
			var s string
			if err := json.Unmarshal(w.ABI, &s); err != nil {
				return nil, fmt.Errorf("class: sierra abi is not a string: %w", err)
			}
			abiJSON = []byte(s)
		}
	case w.Program != nil:
		c.Kind, c.CairoVersion, c.Program = KindLegacy, 0, *w.Program
		if len(w.ABI) > 0 && string(w.ABI) != "null" {
			abiJSON = w.ABI
		}
	default:
		return nil, errors.New("class: neither sierra_program nor program")
	}
	c.ABIRaw = string(abiJSON)
	abi, err := ParseABI(abiJSON)
	if err != nil {
		return nil, fmt.Errorf("class: %w", err)
	}
	c.ABI = abi
	for _, e := range w.EntryPointsByType.External {
		c.EntryPoints.External = append(c.EntryPoints.External, e.Selector)
	}
	for _, e := range w.EntryPointsByType.L1Handler {
		c.EntryPoints.L1Handler = append(c.EntryPoints.L1Handler, e.Selector)
	}
	for _, e := range w.EntryPointsByType.Constructor {
		c.EntryPoints.Constructor = append(c.EntryPoints.Constructor, e.Selector)
	}
	c.Flags = deriveFlags(c)
	return c, nil
}

// maxProgramBytes bounds the decompressed Cairo 0 program (a gzip bomb must not exhaust
// memory); real programs are a few MB.
const maxProgramBytes = 64 << 20

// LegacyProgram returns the decompressed program JSON of a Cairo 0 class.
func (c *Class) LegacyProgram() ([]byte, error) {
	if c.Kind != KindLegacy {
		return nil, errors.New("class: not a legacy class")
	}
	gz, err := base64.StdEncoding.DecodeString(c.Program)
	if err != nil {
		return nil, fmt.Errorf("class: program is not base64: %w", err)
	}
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("class: program is not gzip: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(r, maxProgramBytes+1))
	if err != nil {
		return nil, fmt.Errorf("class: program: %w", err)
	}
	if len(out) > maxProgramBytes {
		return nil, errors.New("class: program larger than 64 MiB")
	}
	return out, nil
}

// HasEntryPoint reports whether the class exposes an external entry point with the selector.
func (c *Class) HasEntryPoint(selector starknet.Felt) bool {
	for _, s := range c.EntryPoints.External {
		if s == selector {
			return true
		}
	}
	return false
}
