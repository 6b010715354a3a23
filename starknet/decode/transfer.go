package decode

import (
	"math/big"

	"github.com/starkgraph/starkgraph/starknet"
)

// Standard is the token standard a transfer event belongs to.
type Standard string

const (
	ERC20   Standard = "ERC20"
	ERC721  Standard = "ERC721"
	ERC1155 Standard = "ERC1155"
)

// Event selectors of token transfers.
var (
	TransferSelector       = starknet.Selector("Transfer")
	TransferSingleSelector = starknet.Selector("TransferSingle")
	TransferBatchSelector  = starknet.Selector("TransferBatch")
)

// Transfer is one token movement read from an event.
type Transfer struct {
	Standard Standard
	Operator Felt     // ERC-1155 only
	From     Felt     // 0x0 for a mint
	To       Felt     // 0x0 for a burn
	TokenID  *big.Int // nil for ERC-20
	Amount   *big.Int // ERC-20 and ERC-1155 amounts; 1 for ERC-721
	// Ambiguous marks the legacy layout keys=[Transfer], data=[from,to,low,high], which
	// Cairo 0 ERC-20 and ERC-721 contracts share. It is reported as ERC-20; a caller that
	// knows the contract is an ERC-721 should read Amount as the token id.
	Ambiguous bool
}

// ClassifyTransfer recognises ERC-20/721/1155 transfer events by selector and layout:
//
//	ERC-20 legacy / StarkGate   keys=[Transfer]                 data=[from,to,low,high]
//	ERC-20 OpenZeppelin Cairo 1 keys=[Transfer,from,to]         data=[low,high]
//	ERC-721 Cairo 1             keys=[Transfer,from,to,id_l,id_h] data=[]
//	ERC-1155 Cairo 1            keys=[TransferSingle,operator,from,to] data=[id_l,id_h,v_l,v_h]
//	ERC-1155 legacy             keys=[TransferSingle]           data=[operator,from,to,id_l,id_h,v_l,v_h]
//	TransferBatch               the same, with ids_len, ids..., values_len, values... in data
//
// It returns the transfers (several for TransferBatch) and false for any other event,
// including a transfer event whose numbers do not parse.
func ClassifyTransfer(keys, data []Felt) ([]Transfer, bool) {
	if len(keys) == 0 {
		return nil, false
	}
	switch keys[0] {
	case TransferSelector:
		return classifyTransfer(keys[1:], data)
	case TransferSingleSelector:
		words := append(append([]Felt{}, keys[1:]...), data...)
		if len(words) != 7 {
			return nil, false
		}
		id, ok1 := u256(words[3], words[4])
		amount, ok2 := u256(words[5], words[6])
		if !ok1 || !ok2 {
			return nil, false
		}
		return []Transfer{{Standard: ERC1155, Operator: words[0], From: words[1], To: words[2], TokenID: id, Amount: amount}}, true
	case TransferBatchSelector:
		return classifyBatch(append(append([]Felt{}, keys[1:]...), data...))
	}
	return nil, false
}

func classifyTransfer(keys, data []Felt) ([]Transfer, bool) {
	switch {
	case len(keys) == 0 && len(data) == 4: // legacy: ERC-20 or ERC-721
		amount, ok := u256(data[2], data[3])
		if !ok {
			return nil, false
		}
		return []Transfer{{Standard: ERC20, From: data[0], To: data[1], Amount: amount, Ambiguous: true}}, true
	case len(keys) == 0 && len(data) == 3: // very old ERC-20 with a felt amount
		return []Transfer{{Standard: ERC20, From: data[0], To: data[1], Amount: data[2].Big()}}, true
	case len(keys) == 2 && len(data) == 2: // OpenZeppelin Cairo 1 ERC-20
		amount, ok := u256(data[0], data[1])
		if !ok {
			return nil, false
		}
		return []Transfer{{Standard: ERC20, From: keys[0], To: keys[1], Amount: amount}}, true
	case len(keys) == 4 && len(data) == 0: // Cairo 1 ERC-721, token id in keys
		id, ok := u256(keys[2], keys[3])
		if !ok {
			return nil, false
		}
		return []Transfer{{Standard: ERC721, From: keys[0], To: keys[1], TokenID: id, Amount: big.NewInt(1)}}, true
	}
	return nil, false
}

// classifyBatch reads operator, from, to, ids_len, ids (u256 each), values_len, values.
func classifyBatch(w []Felt) ([]Transfer, bool) {
	if len(w) < 5 {
		return nil, false
	}
	n, ok := smallInt(w[3], (len(w)-5)/4)
	if !ok || len(w) != 5+4*n {
		return nil, false
	}
	if m, ok := smallInt(w[4+2*n], n); !ok || m != n {
		return nil, false
	}
	out := make([]Transfer, n)
	for i := 0; i < n; i++ {
		id, ok1 := u256(w[4+2*i], w[5+2*i])
		amount, ok2 := u256(w[5+2*n+2*i], w[6+2*n+2*i])
		if !ok1 || !ok2 {
			return nil, false
		}
		out[i] = Transfer{Standard: ERC1155, Operator: w[0], From: w[1], To: w[2], TokenID: id, Amount: amount}
	}
	return out, true
}

func u256(low, high Felt) (*big.Int, bool) {
	v, err := starknet.U256(low, high)
	return v, err == nil
}
