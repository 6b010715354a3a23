package webhooks

import (
	"fmt"
	"slices"

	"github.com/starkgraph/starkgraph/db"
)

// MaxFilterKeys bounds the leading keys an events webhook matches (as the subscription).
const MaxFilterKeys = 16

// filter is a webhook's filter parsed.
type filter struct {
	sender, contract, token, wallet, collection db.Felt
	typ                                         db.TxType
	keys                                        []db.Felt
	// l1Only: items are delivered once their block is ACCEPTED_ON_L1 (db.L1Head).
	l1Only bool
}

func parseFelt(name, s string) (db.Felt, error) {
	if s == "" {
		return nil, nil
	}
	f, err := db.ParseFelt(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %q is not a felt (0x and 1 to 64 hex digits)", name, s)
	}
	return f, nil
}

// CheckFilter says whether f is a filter of kind, and returns it normalized (addresses as
// 0x and 64 digits, felts without leading zeros), with only the fields of kind.
func CheckFilter(kind string, f db.WebhookFilter) (db.WebhookFilter, error) {
	if !slices.Contains(Kinds, kind) {
		return f, fmt.Errorf("kind: %q is none of %v", kind, Kinds)
	}
	p, err := parseFilter(f)
	if err != nil {
		return f, err
	}
	out := db.WebhookFilter{AcceptedOnL1Only: f.AcceptedOnL1Only}
	pad := func(v db.Felt) string {
		if v == nil {
			return ""
		}
		return v.Padded()
	}
	unused := func(what ...string) error {
		for i := 0; i < len(what); i += 2 {
			if what[i+1] != "" {
				return fmt.Errorf("%s: not a filter of %s webhooks", what[i], kind)
			}
		}
		return nil
	}
	switch kind {
	case KindBlocks:
		err = unused("senderAddress", f.SenderAddress, "contractAddress", f.ContractAddress, "type", f.Type,
			"token", f.Token, "wallet", f.Wallet, "collection", f.Collection)
	case KindTransactions:
		out.SenderAddress, out.ContractAddress, out.Type = pad(p.sender), pad(p.contract), f.Type
		err = unused("token", f.Token, "wallet", f.Wallet, "collection", f.Collection)
	case KindTransfers:
		out.Token, out.Wallet = pad(p.token), pad(p.wallet)
		err = unused("senderAddress", f.SenderAddress, "contractAddress", f.ContractAddress, "type", f.Type,
			"collection", f.Collection)
	case KindEvents:
		out.ContractAddress = pad(p.contract)
		for _, k := range p.keys {
			out.Keys = append(out.Keys, k.Hex())
		}
		err = unused("senderAddress", f.SenderAddress, "type", f.Type, "token", f.Token, "wallet", f.Wallet,
			"collection", f.Collection)
	case KindNftTransfers:
		out.Collection, out.Wallet = pad(p.collection), pad(p.wallet)
		err = unused("senderAddress", f.SenderAddress, "contractAddress", f.ContractAddress, "type", f.Type,
			"token", f.Token)
	}
	if err == nil && kind != KindEvents && len(f.Keys) > 0 {
		err = fmt.Errorf("keys: not a filter of %s webhooks", kind)
	}
	return out, err
}

func parseFilter(f db.WebhookFilter) (filter, error) {
	p := filter{l1Only: f.AcceptedOnL1Only}
	var err error
	for _, x := range []struct {
		name string
		s    string
		dst  *db.Felt
	}{{"senderAddress", f.SenderAddress, &p.sender}, {"contractAddress", f.ContractAddress, &p.contract},
		{"token", f.Token, &p.token}, {"wallet", f.Wallet, &p.wallet}, {"collection", f.Collection, &p.collection}} {
		if *x.dst, err = parseFelt(x.name, x.s); err != nil {
			return p, err
		}
	}
	if f.Type != "" {
		p.typ = db.TxType(f.Type)
		if !slices.Contains(txTypes, p.typ) {
			return p, fmt.Errorf("type: %q is none of %v", f.Type, txTypes)
		}
	}
	if len(f.Keys) > MaxFilterKeys {
		return p, fmt.Errorf("keys: at most %d", MaxFilterKeys)
	}
	for i, k := range f.Keys {
		v, err := parseFelt(fmt.Sprintf("keys[%d]", i), k)
		if err != nil {
			return p, err
		}
		if v == nil {
			return p, fmt.Errorf("keys[%d]: empty", i)
		}
		p.keys = append(p.keys, v)
	}
	return p, nil
}

var txTypes = []db.TxType{"INVOKE", "DECLARE", "DEPLOY", "DEPLOY_ACCOUNT", "L1_HANDLER"}

func (p *filter) transaction(t *db.Transaction) bool {
	return (p.sender == nil || p.sender.Equal(t.SenderAddress)) &&
		(p.contract == nil || p.contract.Equal(t.ContractAddress)) &&
		(p.typ == "" || p.typ == t.Type)
}

func (p *filter) transfer(t *db.TokenTransfer) bool {
	return (p.token == nil || p.token.Equal(t.TokenAddress)) &&
		(p.wallet == nil || p.wallet.Equal(t.FromAddress) || p.wallet.Equal(t.ToAddress))
}

func (p *filter) event(e *db.Event) bool {
	if p.contract != nil && !p.contract.Equal(e.FromAddress) {
		return false
	}
	if len(p.keys) > len(e.Keys) {
		return false
	}
	for i, k := range p.keys {
		if !k.Equal(e.Keys[i]) {
			return false
		}
	}
	return true
}

func (p *filter) nftTransfer(e *db.NftEvent) bool {
	return (p.collection == nil || p.collection.Equal(e.ContractAddress)) &&
		(p.wallet == nil || p.wallet.Equal(e.FromAddress) || p.wallet.Equal(e.ToAddress))
}
