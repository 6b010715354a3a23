package class

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/starkgraph/starkgraph/starknet"
)

// ABI is the part of a class ABI the indexer uses, the same for Sierra and Cairo 0:
// functions (also those declared inside Sierra interfaces), structs, enums and event names.
// Type names are kept as written: "core::felt252", "core::array::Array::<core::felt252>" in
// Sierra; "felt", "felt*", "Uint256" in Cairo 0.
type ABI struct {
	Functions []Function
	Structs   map[string]Struct
	Enums     map[string]Enum
	Events    []Event

	bySelector      map[starknet.Felt]int
	eventBySelector map[starknet.Felt]int
}

// Event is an event type. Sierra struct events list their members with the kind "key"
// or "data"; Sierra enum events (the contract's Event enum, component enums) list variants
// of kind "nested" or "flat". Cairo 0 events become struct events.
type Event struct {
	Name     string // full name as declared, e.g. "openzeppelin::...::ERC20Component::Transfer"
	Kind     string // "struct" or "enum"
	Members  []EventMember
	Variants []EventMember
}

// EventMember is a member or variant of an event.
type EventMember struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Kind string `json:"kind"` // key, data, nested, flat
}

// Function kinds.
const (
	KindFunction    = "function"
	KindL1Handler   = "l1_handler"
	KindConstructor = "constructor"
)

// Function is one callable entry of the ABI.
type Function struct {
	Name            string
	Kind            string // function, l1_handler or constructor
	Inputs          []Param
	Outputs         []Param // Sierra outputs have no names
	StateMutability string  // "view" or "external" ("" when not given)
	Interface       string  // the Sierra interface that declares it, if any
}

// Param is a named, typed input, output, struct member or enum variant.
type Param struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Struct is a struct type.
type Struct struct {
	Name    string
	Members []Param
}

// Enum is a Sierra enum type; a variant of type "()" carries no data.
type Enum struct {
	Name     string
	Variants []Param
}

type wireABIEntry struct {
	Type             string         `json:"type"`
	Name             string         `json:"name"`
	Inputs           []Param        `json:"inputs"`
	Outputs          []Param        `json:"outputs"`
	Members          []EventMember  `json:"members"`  // struct members (kind only in events)
	Variants         []EventMember  `json:"variants"` // enum variants (kind only in events)
	Items            []wireABIEntry `json:"items"`
	StateMutability  string         `json:"state_mutability"`
	Kind             string         `json:"kind"`
	Keys             []Param        `json:"keys"`            // Cairo 0 events
	Data             []Param        `json:"data"`            // Cairo 0 events
	StateMutability0 string         `json:"stateMutability"` // Cairo 0 spelling
}

// ParseABI reads an ABI JSON array. Empty input gives an empty ABI.
func ParseABI(data []byte) (*ABI, error) {
	a := &ABI{Structs: map[string]Struct{}, Enums: map[string]Enum{},
		bySelector: map[starknet.Felt]int{}, eventBySelector: map[starknet.Felt]int{}}
	if len(strings.TrimSpace(string(data))) == 0 {
		return a, nil
	}
	var entries []wireABIEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("abi: %w", err)
	}
	for _, e := range entries {
		a.add(e, "")
	}
	return a, nil
}

func (a *ABI) add(e wireABIEntry, iface string) {
	switch e.Type {
	case KindFunction, KindL1Handler, KindConstructor:
		sm := e.StateMutability
		if sm == "" {
			sm = e.StateMutability0
		}
		a.Functions = append(a.Functions, Function{
			Name: e.Name, Kind: e.Type, Inputs: e.Inputs, Outputs: e.Outputs,
			StateMutability: sm, Interface: iface,
		})
		if _, dup := a.bySelector[starknet.Selector(e.Name)]; !dup {
			a.bySelector[starknet.Selector(e.Name)] = len(a.Functions) - 1
		}
	case "interface":
		for _, item := range e.Items {
			a.add(item, e.Name)
		}
	case "struct":
		a.Structs[e.Name] = Struct{Name: e.Name, Members: params(e.Members)}
	case "enum":
		a.Enums[e.Name] = Enum{Name: e.Name, Variants: params(e.Variants)}
	case "event":
		a.addEvent(e)
	}
}

func (a *ABI) addEvent(e wireABIEntry) {
	ev := Event{Name: e.Name, Kind: e.Kind}
	if e.Kind == "" { // Cairo 0: keys and data lists
		ev.Kind = "struct"
		for _, k := range e.Keys {
			ev.Members = append(ev.Members, EventMember{Name: k.Name, Type: k.Type, Kind: "key"})
		}
		for _, d := range e.Data {
			ev.Members = append(ev.Members, EventMember{Name: d.Name, Type: d.Type, Kind: "data"})
		}
	}
	ev.Members = append(ev.Members, e.Members...)
	ev.Variants = append(ev.Variants, e.Variants...)
	a.Events = append(a.Events, ev)
	if ev.Kind != "struct" {
		return
	}
	// A struct event is emitted with keys[0] = sn_keccak of its short name (the variant
	// name in the contract's Event enum, which by convention matches).
	short := e.Name
	if i := strings.LastIndex(short, "::"); i >= 0 {
		short = short[i+2:]
	}
	sel := starknet.Selector(short)
	if _, dup := a.eventBySelector[sel]; !dup {
		a.eventBySelector[sel] = len(a.Events) - 1
	}
}

func params(ms []EventMember) []Param {
	out := make([]Param, len(ms))
	for i, m := range ms {
		out[i] = Param{Name: m.Name, Type: m.Type}
	}
	return out
}

// EventBySelector finds a struct event by its keys[0] selector.
func (a *ABI) EventBySelector(selector starknet.Felt) (*Event, bool) {
	i, ok := a.eventBySelector[selector]
	if !ok {
		return nil, false
	}
	return &a.Events[i], true
}

// FunctionBySelector finds a function (or l1_handler, constructor) by its selector.
func (a *ABI) FunctionBySelector(selector starknet.Felt) (*Function, bool) {
	i, ok := a.bySelector[selector]
	if !ok {
		return nil, false
	}
	return &a.Functions[i], true
}

// Function finds a function by name.
func (a *ABI) Function(name string) (*Function, bool) {
	return a.FunctionBySelector(starknet.Selector(name))
}

// normName folds camelCase and snake_case spellings together: balanceOf and balance_of
// both become "balanceof".
func normName(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }

// deriveFlags looks at function names in the ABI and at the external selectors, so a class
// whose ABI lacks an entry still counts when it exposes the selector.
func deriveFlags(c *Class) Flags {
	names := map[string]bool{}
	for _, f := range c.ABI.Functions {
		names[normName(f.Name)] = true
	}
	external := map[starknet.Felt]bool{}
	for _, s := range c.EntryPoints.External {
		external[s] = true
	}
	has := func(spellings ...string) bool {
		for _, s := range spellings {
			if names[normName(s)] || external[starknet.Selector(s)] {
				return true
			}
		}
		return false
	}
	var f Flags
	f.IsAccount = has("__validate__") && has("__execute__")
	defaultEntry := c.Kind == KindLegacy && (external[starknet.Felt{}] || names["default"])
	f.IsProxy = defaultEntry || has("get_implementation", "getImplementation", "implementation",
		"get_implementation_hash", "getImplementationHash", "implementation_hash")
	balance := has("balance_of", "balanceOf")
	f.IsERC1155 = has("balance_of_batch", "balanceOfBatch") || has("safe_batch_transfer_from", "safeBatchTransferFrom")
	f.IsERC721 = !f.IsERC1155 && has("owner_of", "ownerOf") &&
		(balance || has("token_uri", "tokenURI", "tokenUri"))
	f.IsERC20 = !f.IsERC721 && !f.IsERC1155 && has("transfer") && balance &&
		(has("total_supply", "totalSupply") || has("decimals"))
	return f
}
