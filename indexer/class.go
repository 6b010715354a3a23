package indexer

import (
	"encoding/json"

	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/class"
)

// classInfo is what the indexer keeps of a class: the columns of its classes row and the
// names of its functions, for naming calls.
type classInfo struct {
	Kind         string // sierra | legacy
	CairoVersion int    // 1 for Sierra, 0 for legacy
	Version      string // contract_class_version, or "0"
	ABI          json.RawMessage
	IsAccount    bool
	IsProxy      bool
	ERCStandard  string                   // erc20 | erc721 | erc1155 | ""
	Functions    map[starknet.Felt]string // selector -> function name
	Parsed       *class.ABI               // for decoding calldata into named inputs; nil without an ABI
}

// classInfoOf keeps what the indexer needs of a class parsed by starknet/class.
func classInfoOf(c *class.Class) *classInfo {
	info := &classInfo{Kind: string(c.Kind), CairoVersion: int(c.CairoVersion), Version: "0",
		IsAccount: c.Flags.IsAccount, IsProxy: c.Flags.IsProxy, Functions: functionNames(c.ABI), Parsed: c.ABI}
	if c.Kind == class.KindSierra {
		info.Version = c.ContractClassVersion
		if info.Version == "" {
			info.Version = "0.1.0"
		}
	}
	if c.ABIRaw != "" && json.Valid([]byte(c.ABIRaw)) {
		info.ABI = json.RawMessage(c.ABIRaw)
	}
	switch {
	case c.Flags.IsERC1155:
		info.ERCStandard = "erc1155"
	case c.Flags.IsERC721:
		info.ERCStandard = "erc721"
	case c.Flags.IsERC20:
		info.ERCStandard = "erc20"
	}
	return info
}

// parseStoredABI reads an ABI stored in classes.abi; nil when there is none or it is unreadable.
func parseStoredABI(abi json.RawMessage) *class.ABI {
	parsed, err := class.ParseABI(abi)
	if err != nil {
		return nil
	}
	return parsed
}

func functionNames(abi *class.ABI) map[starknet.Felt]string {
	out := map[starknet.Felt]string{}
	if abi == nil {
		return out
	}
	for _, f := range abi.Functions {
		out[starknet.Selector(f.Name)] = f.Name
	}
	return out
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
