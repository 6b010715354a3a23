package db

import (
	"math/big"
	"strconv"
)

// A transaction's resource bounds and execution resources are stored as numeric columns
// (migration 00041), nine numbers that took 339 bytes a row as jsonb. The APIs show them
// as the JSON they were, in the text PostgreSQL gave for the jsonb: keys by length, then
// bytes, a space after each colon and comma (GraphQL's resourceBounds and
// executionResources pass that text through).

// ResourceBounds is the transaction's v3 resource bounds as JSON, or nil before v3:
//
//	{"l1_gas": {"max_amount": "0x0", "max_price_per_unit": "0xb6f28b6e0c50"}, "l2_gas": {...}, "l1_data_gas": {...}}
//
// l1_data_gas is left out when its columns are NULL (bounds stored without it).
func (t *Transaction) ResourceBounds() JSON {
	if t.MaxL1Gas == nil {
		return nil
	}
	b := make([]byte, 0, 256)
	b = append(b, `{"l1_gas": `...)
	b = appendBound(b, t.MaxL1Gas, t.MaxL1GasPrice)
	b = append(b, `, "l2_gas": `...)
	b = appendBound(b, t.MaxL2Gas, t.MaxL2GasPrice)
	if t.MaxL1DataGas != nil {
		b = append(b, `, "l1_data_gas": `...)
		b = appendBound(b, t.MaxL1DataGas, t.MaxL1DataGasPrice)
	}
	return append(b, '}')
}

func appendBound(b []byte, amount, price *string) []byte {
	b = append(b, `{"max_amount": "`...)
	b = appendDecimalAsHex(b, amount)
	b = append(b, `", "max_price_per_unit": "`...)
	b = appendDecimalAsHex(b, price)
	return append(b, `"}`...)
}

// appendDecimalAsHex appends the felt form (0x, lowercase, no leading zeros) of a decimal
// column's text; NULL is 0x0.
func appendDecimalAsHex(b []byte, dec *string) []byte {
	b = append(b, "0x"...)
	if dec == nil {
		return append(b, '0')
	}
	if n, err := strconv.ParseUint(*dec, 10, 64); err == nil {
		return strconv.AppendUint(b, n, 16)
	}
	n, ok := new(big.Int).SetString(*dec, 10)
	if !ok {
		return append(b, '0')
	}
	return n.Append(b, 16)
}

// ExecutionResources is the gas the receipt says the transaction used, as JSON, or nil
// when its columns are NULL:
//
//	{"l1_gas": 0, "l2_gas": 4751592, "l1_data_gas": 409}
func (t *Transaction) ExecutionResources() JSON {
	if t.L1GasUsed == nil {
		return nil
	}
	b := make([]byte, 0, 64)
	b = append(b, `{"l1_gas": `...)
	b = appendDecimal(b, t.L1GasUsed)
	b = append(b, `, "l2_gas": `...)
	b = appendDecimal(b, t.L2GasUsed)
	b = append(b, `, "l1_data_gas": `...)
	b = appendDecimal(b, t.L1DataGasUsed)
	return append(b, '}')
}

func appendDecimal(b []byte, dec *string) []byte {
	if dec == nil {
		return append(b, '0')
	}
	return append(b, *dec...)
}
