package indexer

import (
	"math/big"

	"github.com/starkgraph/starkgraph/starknet"
)

var (
	selTransfer       = starknet.Selector("Transfer")
	selTransferSingle = starknet.Selector("TransferSingle")
	selTransferBatch  = starknet.Selector("TransferBatch")
	selDeployed       = starknet.Selector("ContractDeployed") // the Universal Deployer's event
)

// tokenMove is one token movement read from a Transfer-like event.
type tokenMove struct {
	Standard string // erc20 | erc721 | erc1155
	From, To starknet.Felt
	Amount   *big.Int // ERC-20 value, ERC-1155 quantity, 1 for ERC-721
	TokenID  *big.Int // NFTs only
	SubIndex int      // position inside an ERC-1155 TransferBatch
	Fee      bool     // an ERC-20 transfer paying the transaction's fee
}

func u256(low, high starknet.Felt) *big.Int {
	v := new(big.Int).Lsh(high.Big(), 128)
	return v.Add(v, low.Big())
}

// readTransfers classifies an event as token movements. known is the standard of the
// emitting contract's class when its ABI says so (""), which settles the shapes that ERC-20
// and legacy ERC-721 share.
func readTransfers(keys, data []starknet.Felt, known string) []tokenMove {
	if len(keys) == 0 {
		return nil
	}
	switch keys[0] {
	case selTransfer:
		switch {
		case len(keys) == 5 && len(data) == 0: // Cairo 1 ERC-721: from, to, id in keys
			return []tokenMove{{Standard: "erc721", From: keys[1], To: keys[2], Amount: big.NewInt(1), TokenID: u256(keys[3], keys[4])}}
		case len(keys) == 3 && len(data) == 2: // OpenZeppelin Cairo 1 ERC-20
			return []tokenMove{{Standard: "erc20", From: keys[1], To: keys[2], Amount: u256(data[0], data[1])}}
		case len(keys) == 1 && len(data) == 4: // legacy: from, to, u256 in data
			if known == "erc721" {
				return []tokenMove{{Standard: "erc721", From: data[0], To: data[1], Amount: big.NewInt(1), TokenID: u256(data[2], data[3])}}
			}
			return []tokenMove{{Standard: "erc20", From: data[0], To: data[1], Amount: u256(data[2], data[3])}}
		case len(keys) == 1 && len(data) == 3 && known == "erc20": // felt amount
			return []tokenMove{{Standard: "erc20", From: data[0], To: data[1], Amount: data[2].Big()}}
		}
	case selTransferSingle:
		// Cairo 1: keys [sel, operator, from, to], data [id.low, id.high, value.low, value.high].
		if len(keys) == 4 && len(data) == 4 {
			return []tokenMove{{Standard: "erc1155", From: keys[2], To: keys[3], TokenID: u256(data[0], data[1]), Amount: u256(data[2], data[3])}}
		}
		// Cairo 0: data [operator, from, to, id.low, id.high, value.low, value.high].
		if len(keys) == 1 && len(data) == 7 {
			return []tokenMove{{Standard: "erc1155", From: data[1], To: data[2], TokenID: u256(data[3], data[4]), Amount: u256(data[5], data[6])}}
		}
	case selTransferBatch:
		var from, to starknet.Felt
		var rest []starknet.Felt
		switch {
		case len(keys) == 4:
			from, to, rest = keys[2], keys[3], data
		case len(keys) == 1 && len(data) >= 3:
			from, to, rest = data[1], data[2], data[3:]
		default:
			return nil
		}
		ids, rest, ok := readU256Array(rest)
		if !ok {
			return nil
		}
		values, rest, ok := readU256Array(rest)
		if !ok || len(rest) != 0 || len(values) != len(ids) {
			return nil
		}
		moves := make([]tokenMove, len(ids))
		for i := range ids {
			moves[i] = tokenMove{Standard: "erc1155", From: from, To: to, TokenID: ids[i], Amount: values[i], SubIndex: i}
		}
		return moves
	}
	return nil
}

func readU256Array(words []starknet.Felt) ([]*big.Int, []starknet.Felt, bool) {
	if len(words) == 0 {
		return nil, nil, false
	}
	n, ok := smallInt(words[0], uint64(len(words)))
	if !ok || 1+2*n > len(words) {
		return nil, nil, false
	}
	out := make([]*big.Int, n)
	for i := 0; i < n; i++ {
		out[i] = u256(words[1+2*i], words[2+2*i])
	}
	return out, words[1+2*n:], true
}
