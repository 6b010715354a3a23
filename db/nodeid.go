package db

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// Global ids (the Relay Node interface) are base64url of "<Kind>:<key>": the key is what
// the object is found by (a block number, a hash, an address, a position), so an id stays
// valid across restarts and replicas. They are opaque to clients; the resolvers' node(id)
// reads them back. Each row type gives its own as a method without a context, which gqlgen
// resolves inline (as a resolver, beside another, it would cost a goroutine per item).

// globalID is the global id of the object of kind found by key.
func globalID(kind, key string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(kind + ":" + key))
}

// positionKey is the key of an object found by its position (block, transaction, index...).
func positionKey(parts ...int64) string {
	s := make([]string, len(parts))
	for i, p := range parts {
		s[i] = strconv.FormatInt(p, 10)
	}
	return strings.Join(s, ":")
}

func (b *Block) ID() string       { return globalID("Block", strconv.FormatInt(b.Number, 10)) }
func (t *Transaction) ID() string { return globalID("Transaction", t.Hash.Hex()) }
func (c *Class) ID() string       { return globalID("Class", c.Hash.Hex()) }
func (c *Contract) ID() string    { return globalID("Contract", c.Address.Hex()) }
func (t *Token) ID() string       { return globalID("Token", t.Address.Hex()) }
func (p *Pool) ID() string        { return globalID("Pool", p.Address.Hex()) }
func (v *Validator) ID() string   { return globalID("Validator", v.StakerAddress.Hex()) }
func (n *NftItem) ID() string     { return globalID("NftItem", n.ContractAddress.Hex()+":"+n.TokenID) }

func (e *Event) ID() string {
	return globalID("Event", positionKey(e.BlockNumber, int64(e.TxIndex), int64(e.Index)))
}

func (m *Message) ID() string {
	return globalID("Message", positionKey(m.BlockNumber, int64(m.TxIndex), int64(m.Direction), int64(m.Index)))
}
