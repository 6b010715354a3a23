package starknet

import (
	"fmt"
	"math/big"
)

// U256 joins the two 128-bit halves of a Cairo u256 (low, high) into one integer.
// It fails when either half does not fit in 128 bits, which a well-formed u256 never does.
func U256(low, high Felt) (*big.Int, error) {
	if low.BitLen() > 128 || high.BitLen() > 128 {
		return nil, fmt.Errorf("invalid u256: low %s / high %s exceed 128 bits", low, high)
	}
	var b [32]byte
	copy(b[:16], high[16:])
	copy(b[16:], low[16:])
	return new(big.Int).SetBytes(b[:]), nil
}

// U256Decimal is U256 rendered as a decimal string, the form amounts take in the API.
func U256Decimal(low, high Felt) (string, error) {
	v, err := U256(low, high)
	if err != nil {
		return "", err
	}
	return v.String(), nil
}

// SplitU256 splits a non-negative integer below 2^256 into (low, high) halves.
func SplitU256(v *big.Int) (low, high Felt, err error) {
	if v.Sign() < 0 || v.BitLen() > 256 {
		return low, high, fmt.Errorf("invalid u256: %s out of range", v)
	}
	var b [32]byte
	v.FillBytes(b[:])
	copy(high[16:], b[:16])
	copy(low[16:], b[16:])
	return low, high, nil
}
