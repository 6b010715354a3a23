package verify

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/NethermindEth/starknet.go/contracts"
	"github.com/NethermindEth/starknet.go/hash"

	"github.com/starkgraph/starkgraph/db"
)

// compiledClass is what scarb writes to target/dev/<package>_<contract>.contract_class.json,
// read twice: by starknet.go for the hash, and for the ABI we publish.
type compiledClass struct {
	SierraProgram        []string        `json:"sierra_program"`
	ContractClassVersion string          `json:"contract_class_version"`
	EntryPointsByType    json.RawMessage `json:"entry_points_by_type"`
	ABI                  json.RawMessage `json:"abi"`
}

// SierraClassHash computes the class hash of a Sierra contract class in scarb's output form
// (ABI as a JSON array) or the node's form (ABI as a string), and returns the ABI as JSON.
// The hashing is starknet.go's (Poseidon over the entry points, the Keccak of the ABI text
// and the Sierra program); starknet.go flattens an ABI array into the text that cairo-lang
// and starknet.js hash. Cairo 0 (legacy) classes have no Sierra program and are refused.
func SierraClassHash(classJSON []byte) (db.Felt, db.JSON, error) {
	var shape compiledClass
	if err := json.Unmarshal(classJSON, &shape); err != nil {
		return nil, nil, fmt.Errorf("not a contract class: %w", err)
	}
	if len(shape.SierraProgram) == 0 || shape.ContractClassVersion == "" || len(shape.EntryPointsByType) == 0 {
		return nil, nil, errors.New("not a Sierra contract class (no sierra_program, contract_class_version or entry_points_by_type); Cairo 0 classes cannot be verified")
	}
	var class contracts.ContractClass
	if err := json.Unmarshal(classJSON, &class); err != nil {
		return nil, nil, fmt.Errorf("not a Sierra contract class: %w", err)
	}
	h := hash.ClassHash(&class)
	b := h.Bytes()
	return db.Normalize(b[:]), abiJSON(shape.ABI), nil
}

// abiJSON returns the ABI as a JSON value (an array), whether the class carried it as an
// array or as a string holding one; nil when it has none or it is unreadable.
func abiJSON(raw json.RawMessage) db.JSON {
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		raw = json.RawMessage(text)
	}
	var v []any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil
	}
	out, _ := json.Marshal(v)
	return db.JSON(out)
}
