package indexer

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/starkgraph/starkgraph/starknet"
)

// classInfo is what the indexer learns from a getClass answer. It is an internal helper:
// starknet/ had no class or ABI parser when this was written.
type classInfo struct {
	Kind         string // sierra | legacy
	CairoVersion int16  // 1 for Sierra, 0 for legacy
	Version      string // contract_class_version, or "0"
	ABI          json.RawMessage
	IsAccount    bool
	IsProxy      bool
	ERCStandard  string                   // erc20 | erc721 | erc1155 | ""
	Functions    map[starknet.Felt]string // selector -> function name
}

type wireClass struct {
	SierraProgram        json.RawMessage `json:"sierra_program"`
	ContractClassVersion string          `json:"contract_class_version"`
	Program              json.RawMessage `json:"program"`
	ABI                  json.RawMessage `json:"abi"`
	EntryPointsByType    json.RawMessage `json:"entry_points_by_type"`
}

// abiEntry is one ABI item of either Cairo version; interfaces nest functions in Items.
type abiEntry struct {
	Type  string     `json:"type"`
	Name  string     `json:"name"`
	Items []abiEntry `json:"items"`
}

// parseClass reads a getClass result.
func parseClass(raw json.RawMessage) (*classInfo, error) {
	var w wireClass
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("class: malformed: %w", err)
	}
	c := &classInfo{Functions: map[starknet.Felt]string{}}
	switch {
	case len(w.SierraProgram) > 0:
		c.Kind, c.CairoVersion, c.Version = "sierra", 1, w.ContractClassVersion
		if c.Version == "" {
			c.Version = "0.1.0"
		}
		// Sierra ABIs arrive as a JSON string holding the array.
		var s string
		if err := json.Unmarshal(w.ABI, &s); err == nil {
			c.ABI = json.RawMessage(s)
		} else {
			c.ABI = w.ABI
		}
	case len(w.Program) > 0:
		c.Kind, c.CairoVersion, c.Version = "legacy", 0, "0"
		c.ABI = w.ABI
	default:
		return nil, fmt.Errorf("class: neither sierra_program nor program")
	}
	var entries []abiEntry
	if len(c.ABI) > 0 && string(c.ABI) != "null" {
		if err := json.Unmarshal(c.ABI, &entries); err != nil {
			// An ABI that is not an array is kept out of the database rather than guessed at.
			c.ABI = nil
			entries = nil
		}
	} else {
		c.ABI = nil
	}
	names := map[string]bool{}
	var walk func([]abiEntry)
	walk = func(es []abiEntry) {
		for _, e := range es {
			switch e.Type {
			case "function", "l1_handler", "constructor":
				names[e.Name] = true
				c.Functions[starknet.Selector(e.Name)] = e.Name
			case "interface", "impl":
				walk(e.Items)
			}
		}
	}
	walk(entries)
	if len(w.EntryPointsByType) > 0 && strings.Contains(string(w.EntryPointsByType), `"__default__"`) {
		names["__default__"] = true
	}
	c.IsAccount, c.IsProxy, c.ERCStandard = classFlags(names, w.EntryPointsByType)
	return c, nil
}

// classFlags derives the account, proxy and token flags from the function names of an ABI.
func classFlags(names map[string]bool, entryPoints json.RawMessage) (isAccount, isProxy bool, erc string) {
	has := func(ns ...string) bool {
		for _, n := range ns {
			if names[n] {
				return true
			}
		}
		return false
	}
	isAccount = has("__execute__") && has("__validate__")
	isProxy = has("__default__", "get_implementation", "getImplementation", "implementation",
		"get_implementation_hash", "implementation_hash", "get_implementation_class_hash")
	// Legacy proxies route everything through a default entry point (selector 0).
	if !isProxy && len(entryPoints) > 0 && strings.Contains(string(entryPoints), `"selector":"0x0"`) {
		isProxy = true
	}
	switch {
	case has("balance_of_batch", "balanceOfBatch", "safe_batch_transfer_from", "safeBatchTransferFrom"):
		erc = "erc1155"
	case has("owner_of", "ownerOf") && has("balance_of", "balanceOf"):
		erc = "erc721"
	case has("balance_of", "balanceOf") && has("transfer") && has("decimals"):
		erc = "erc20"
	}
	return isAccount, isProxy, erc
}

// contractType is the contracts.type of a contract of a class with these flags.
func contractType(c *classInfo) string {
	switch {
	case c == nil:
		return "unknown"
	case c.IsAccount:
		return "account"
	case c.ERCStandard != "":
		return c.ERCStandard
	case c.IsProxy:
		return "proxy"
	}
	return "unknown"
}
