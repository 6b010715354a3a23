// Package slots computes the storage addresses at which contracts keep values, as the
// Cairo compilers lay out storage: a storage variable's base address is sn_keccak of its
// name, and an entry of a mapping is pedersen(base, key), reduced modulo 2^251 - 256 (the
// storage address bound). A u256 stored there takes two slots: its low half at the address,
// its high half at the next one.
//
// The ERC-20 balances of OpenZeppelin (Cairo 0 and 1) and StarkGate's tokens (ETH, STRK and
// the bridged ones) live in the mapping ERC20_balances; ERC20Balance gives its slots.
package slots

import (
	"math/big"

	"github.com/NethermindEth/juno/core/felt"
	"github.com/NethermindEth/starknet.go/curve"

	"github.com/starkgraph/starkgraph/starknet"
)

// ERC20BalancesBase is sn_keccak("ERC20_balances"), the base address of the balances map.
var ERC20BalancesBase = starknet.Keccak([]byte("ERC20_balances"))

// addressBound is 2^251 - 256, the bound of Starknet storage addresses.
var addressBound = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 251), big.NewInt(256))

// MapEntry is the storage address of entry key of the mapping whose base address is base:
// pedersen(base, key) mod (2^251 - 256).
func MapEntry(base, key starknet.Felt) starknet.Felt {
	var a, b felt.Felt
	a.SetBytes(base[:])
	b.SetBytes(key[:])
	h := curve.Pedersen(&a, &b).Bytes()
	out := starknet.Felt(h)
	// The hash is below the prime P = 2^251 + 17*2^192 + 1 < 2 * bound, so one
	// subtraction reduces it.
	v := new(big.Int).SetBytes(out[:])
	if v.Cmp(addressBound) >= 0 {
		v.Sub(v, addressBound)
		out = starknet.Felt{}
		v.FillBytes(out[:])
	}
	return out
}

// Next is the slot after s: the high half of a u256 whose low half is at s.
func Next(s starknet.Felt) starknet.Felt {
	for i := 31; i >= 0; i-- {
		s[i]++
		if s[i] != 0 {
			break
		}
	}
	return s
}

// ERC20Balance returns the slots of account's balance in a standard ERC-20: the low and the
// high 128 bits of the u256.
func ERC20Balance(account starknet.Felt) (low, high starknet.Felt) {
	low = MapEntry(ERC20BalancesBase, account)
	return low, Next(low)
}
