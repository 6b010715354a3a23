package rest

import (
	"encoding/json"
	"math/big"
	"strings"

	"github.com/starkgraph/starkgraph/db"
)

// Renderings of store values in the forms the reference uses.

// addr is an address or class hash: 0x and 64 lowercase hex digits.
func addr(f db.Felt) string { return f.Padded() }

// addrOrNil is addr, or null for an unknown address.
func addrOrNil(f db.Felt) *string {
	if f == nil {
		return nil
	}
	s := f.Padded()
	return &s
}

// hexOrNil is a hash or felt in node form (no leading zeros), or null.
func hexOrNil(f db.Felt) *string {
	if f == nil {
		return nil
	}
	s := f.Hex()
	return &s
}

// hexOrEmpty is a hash in node form, or "" where the reference has a non-null string.
func hexOrEmpty(f db.Felt) string {
	if f == nil {
		return ""
	}
	return f.Hex()
}

// feltList renders calldata-like arrays in node form.
func feltList(fs []db.Felt) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Hex()
	}
	return out
}

// decimalToHex renders a decimal amount as 0x-hex (tx-activity fees and prices).
func decimalToHex(s *string) *string {
	if s == nil {
		return nil
	}
	n, ok := new(big.Int).SetString(*s, 10)
	if !ok {
		return nil
	}
	h := "0x" + n.Text(16)
	return &h
}

// number renders a decimal string as a JSON number without losing digits (NFT balances
// and quantities are u256 in the store but numbers in the reference).
func number(s string) json.Number {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return json.Number("0")
	}
	return json.Number(s)
}

// formatUnits renders a base-unit amount with decimals digits after the point, without
// trailing zeros ("446609922962000" wei -> "0.000446609922962").
func formatUnits(amount string, decimals int) string {
	n, ok := new(big.Int).SetString(amount, 10)
	if !ok {
		return "0"
	}
	neg := n.Sign() < 0
	digits := new(big.Int).Abs(n).String()
	if len(digits) <= decimals {
		digits = strings.Repeat("0", decimals-len(digits)+1) + digits
	}
	whole, frac := digits[:len(digits)-decimals], strings.TrimRight(digits[len(digits)-decimals:], "0")
	out := whole
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// tokenNaming is how an item names the token it concerns; items embed it.
type tokenNaming struct {
	TokenName     *string `json:"tokenName"`
	TokenSymbol   *string `json:"tokenSymbol"`
	TokenDecimals *int    `json:"tokenDecimals"`
}

// namingOf names a token; an unknown one (nil) has no name.
func namingOf(t *db.Token) tokenNaming {
	if t == nil {
		return tokenNaming{}
	}
	return tokenNaming{t.Name, t.Symbol, t.Decimals}
}
