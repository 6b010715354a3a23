package db

import (
	"math/big"
	"strconv"
	"strings"
)

// What a row shows that its columns do not hold as such, computed from the row alone: a
// transaction's type as the GraphQL enum (bound to TxType in gqlgen.yml), the explorer's
// status strings, flags, totals, and columns in the types GraphQL gives them. gqlgen
// resolves a field bound to a method without a context inline, where it runs all of an
// object's resolvers but one in goroutines of their own; REST's items use the same methods.

// TxType is a transaction's type as the node names it (column transactions.type), and
// the GraphQL enum TransactionType.
type TxType string

const (
	TxInvoke        TxType = "INVOKE"
	TxDeclare       TxType = "DECLARE"
	TxDeploy        TxType = "DEPLOY"
	TxDeployAccount TxType = "DEPLOY_ACCOUNT"
	TxL1Handler     TxType = "L1_HANDLER"
)

// Status is the block's status as the explorer shows it ("Accepted on L2").
func (b *Block) Status() string { return displayStatus(b.RawStatus) }

// Status is a transaction's one-word outcome: "Reverted" when its execution was, else
// its finality.
func (t *Transaction) Status() string {
	if t.RawExecutionStatus == "REVERTED" {
		return "Reverted"
	}
	return displayStatus(t.RawFinalityStatus)
}

// ExecutionStatus is the execution status as the explorer shows it ("Succeeded").
func (t *Transaction) ExecutionStatus() string { return displayStatus(t.RawExecutionStatus) }

// FinalityStatus is the finality status as the explorer shows it ("Accepted on L1").
func (t *Transaction) FinalityStatus() string { return displayStatus(t.RawFinalityStatus) }

// displayStatus maps the node's status values to the strings the explorer shows.
func displayStatus(raw string) string {
	switch raw {
	case "ACCEPTED_ON_L2":
		return "Accepted on L2"
	case "ACCEPTED_ON_L1":
		return "Accepted on L1"
	case "PRE_CONFIRMED", "PENDING":
		return "Pre-confirmed"
	case "REJECTED":
		return "Rejected"
	case "REVERTED":
		return "Reverted"
	case "SUCCEEDED":
		return "Succeeded"
	}
	return raw
}

// IsErcToken reports whether the class implements a token standard.
func (c *Class) IsErcToken() bool { return c.RawErcStandard != nil }

// IsErcToken reports whether the contract is a token (ERC-20, -721 or -1155).
func (c *Contract) IsErcToken() bool {
	switch c.Type {
	case "erc20", "erc721", "erc1155":
		return true
	}
	return false
}

// KeyList is the event's keys; DataList its data (as GraphQL's lists of felts).
func (e *Event) KeyList() []Felt  { return e.Keys }
func (e *Event) DataList() []Felt { return e.Data }

// CalldataList is the call's calldata (as GraphQL's list of felts).
func (c *Call) CalldataList() []Felt { return c.Calldata }

// PayloadList is the message's payload (as GraphQL's list of felts).
func (m *Message) PayloadList() []Felt { return m.Payload }

// TransferCountText and HolderCountText are the token's counts as GraphQL's strings.
func (t *Token) TransferCountText() string { return strconv.FormatInt(t.TransferCount, 10) }
func (t *Token) HolderCountText() string   { return strconv.FormatInt(t.HolderCount, 10) }

// TotalStakeStrk is the STRK staked on the validator, its own and delegated.
func (v *Validator) TotalStakeStrk() string { return AddDecimals(v.SelfStake, v.DelegatedStakeStrk) }

// TotalStakeBtc is the BTC-token stake delegated to the validator.
func (v *Validator) TotalStakeBtc() string { return AddDecimals(v.DelegatedStakeBtc) }

// RevenueShare is the validator's commission in percent.
func (v *Validator) RevenueShare() float64 { return float64(v.RevenueShareBps) / 100 }

// AddDecimals sums decimal integers (amounts as numeric columns give them); a value that
// is not one counts as 0.
func AddDecimals(vals ...string) string {
	sum := new(big.Int)
	for _, v := range vals {
		if n, ok := new(big.Int).SetString(v, 10); ok {
			sum.Add(sum, n)
		}
	}
	return sum.String()
}

// TokenStandard is a token standard as the GraphQL enum TokenStandard names it; the store
// keeps it in lower case ("erc20").
type TokenStandard string

const (
	StandardERC20   TokenStandard = "ERC20"
	StandardERC721  TokenStandard = "ERC721"
	StandardERC1155 TokenStandard = "ERC1155"
)

// Standard is the token's standard.
func (t *Token) Standard() TokenStandard { return TokenStandard(strings.ToUpper(t.RawStandard)) }

// BalancesSource is how a token's balances are known, as GraphQL's enum: tokens.balances_source
// in capitals.
type BalancesSource string

// The values of BalancesSource.
const (
	BalancesSourceEvents             BalancesSource = "EVENTS"
	BalancesSourceEventsMatchStorage BalancesSource = "EVENTS_MATCH_STORAGE"
	BalancesSourceStorage            BalancesSource = "STORAGE"
	BalancesSourceCalls              BalancesSource = "CALLS"
)

// BalancesSource says how the token's balances are known.
func (t *Token) BalancesSource() BalancesSource {
	if t.RawBalancesSource == "" {
		return BalancesSourceEvents
	}
	return BalancesSource(strings.ToUpper(t.RawBalancesSource))
}

// ErcStandard is the standard the class implements; nil when none.
func (c *Class) ErcStandard() *TokenStandard {
	if c.RawErcStandard == nil {
		return nil
	}
	s := TokenStandard(strings.ToUpper(*c.RawErcStandard))
	return &s
}
