package rest

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/loaders"
	"github.com/starkgraph/starkgraph/resolvers"
)

// contractItem is an item of GET /beta/contracts; contractDetails adds four fields.
type contractItem struct {
	Address           string  `json:"address"`
	BlockNumber       int64   `json:"blockNumber"`
	IsAccount         bool    `json:"isAccount"`
	IsErcToken        bool    `json:"isErcToken"`
	IsProxy           bool    `json:"isProxy"`
	Type              string  `json:"type"`
	CreationTimestamp int64   `json:"creationTimestamp"`
	VerifiedTimestamp *int    `json:"verifiedTimestamp"`
	ClassAlias        *string `json:"classAlias"`
	ContractAlias     *string `json:"contractAlias"`
	ClassHash         string  `json:"classHash"`
	Version           *string `json:"version"`
	BlockHash         string  `json:"blockHash"`
}

type contractDetails struct {
	contractItem
	Nonce                  json.Number `json:"nonce"`
	ImplementationContract *string     `json:"implementationContract"`
	TokenName              *string     `json:"tokenName"`
	TokenSymbol            *string     `json:"tokenSymbol"`
}

var contractTypes = map[string]model.ContractType{
	"account": model.ContractTypeAccount, "erc20": model.ContractTypeErc20, "erc721": model.ContractTypeErc721,
	"erc1155": model.ContractTypeErc1155, "unknown": model.ContractTypeUnknown, "proxy": model.ContractTypeProxy,
}

func listContractsOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	pg := pageOf(a)
	var typ *model.ContractType
	if t, ok := contractTypes[a.str("type")]; ok {
		typ = &t // "null" and absence both mean every type
	}
	conn, err := s.res.Query().Contracts(ctx, &pg.first, pg.after, typ)
	if err != nil {
		return nil, err
	}
	return s.contractPage(ctx, pg, conn)
}

// contractPage answers a page of contracts, what its items show beside their rows loaded
// for the whole page.
func (s *server) contractPage(ctx context.Context, pg page, conn *model.ContractConnection) (any, error) {
	return pageLoaded(ctx, pg, conn.Edges, conn.TotalCount, func(e *model.ContractEdge) *db.Contract { return e.Node },
		resolvers.LoadContractHeaders, s.contractItem)
}

func (s *server) contractItem(ctx context.Context, c *db.Contract) (out contractItem, err error) {
	cr := s.res.Contract()
	out = contractItem{Address: addr(c.Address), Type: c.Type, ClassHash: addr(c.ClassHash)}
	if c.DeployedBlock != nil {
		out.BlockNumber = *c.DeployedBlock
	}
	if c.DeployedAt != nil {
		out.CreationTimestamp = *c.DeployedAt
	}
	if out.IsAccount, err = cr.IsAccount(ctx, c); err != nil {
		return out, err
	}
	out.IsErcToken = c.IsErcToken()
	if out.IsProxy, err = cr.IsProxy(ctx, c); err != nil {
		return out, err
	}
	if out.VerifiedTimestamp, err = cr.VerifiedTimestamp(ctx, c); err != nil {
		return out, err
	}
	if out.ClassAlias, err = cr.ClassAlias(ctx, c); err != nil {
		return out, err
	}
	if out.ContractAlias, err = cr.Alias(ctx, c); err != nil {
		return out, err
	}
	if out.Version, err = cr.Version(ctx, c); err != nil {
		return out, err
	}
	blockHash, err := cr.BlockHash(ctx, c)
	out.BlockHash = hexOrEmpty(blockHash)
	return out, err
}

// requireContract answers 404 for an address where no contract is indexed.
func (s *server) requireContract(ctx context.Context, address db.Felt) (*db.Contract, error) {
	c, err := s.res.Query().Contract(ctx, address)
	return found(c, err, "contractAddress: no contract at %s", addr(address))
}

func contractOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	c, err := s.contractWithLinks(ctx, a.felt("contractAddress"))
	if err != nil {
		return nil, err
	}
	if err := resolvers.LoadContractHeaders(ctx, []*db.Contract{c}); err != nil {
		return nil, err
	}
	item, err := s.contractItem(ctx, c)
	if err != nil {
		return nil, err
	}
	out := contractDetails{contractItem: item, Nonce: number(c.Nonce), ImplementationContract: addrOrNil(c.ImplementationAddress)}
	token, err := s.res.Contract().Token(ctx, c)
	if err != nil {
		return nil, err
	}
	if token != nil {
		out.TokenName, out.TokenSymbol = token.Name, token.Symbol
	}
	return out, nil
}

// contractWithLinks reads the contract at address with its class, verification, deploy
// block and token in one statement (db.Store.ContractWithLinks) and puts them in the
// request's loaders, through which the details read them (a 404 when no contract is there).
// The class is primed without its ABI, which the details do not show.
func (s *server) contractWithLinks(ctx context.Context, address db.Felt) (*db.Contract, error) {
	links, err := s.res.Store.ContractWithLinks(ctx, address)
	if err != nil || links == nil {
		return found[db.Contract](nil, err, "contractAddress: no contract at %s", addr(address))
	}
	c, l := links.Contract, loaders.For(ctx)
	l.Contract.Prime(ctx, string(c.Address), c)
	l.Class.Prime(ctx, string(c.ClassHash), links.Class)
	l.VerifiedClass.Prime(ctx, string(c.ClassHash), links.Verified)
	l.Token.Prime(ctx, string(c.Address), links.Token)
	if c.DeployedBlock != nil {
		l.BlockHash.Prime(ctx, *c.DeployedBlock, links.Block)
	}
	return c, nil
}

// tokenHeld is an element of GET /beta/contracts/{contractAddress}/erc20-tokens-held.
type tokenHeld struct {
	Address          string  `json:"address"`
	Name             string  `json:"name"`
	Symbol           string  `json:"symbol"`
	Decimals         *int    `json:"decimals"`
	Balance          *string `json:"balance"`
	LastTransferTime *int64  `json:"lastTransferTime"`
	Logo             string  `json:"logo,omitempty"`
	IsVerified       *bool   `json:"isVerified"`
}

// tokensHeld is the contract its contractAddress parameter names (or a 404) and the
// ERC-20 balances it holds.
func (s *server) tokensHeld(ctx context.Context, a *args) (*db.Contract, []*db.TokenBalance, error) {
	c, err := s.requireContract(ctx, a.felt("contractAddress"))
	if err != nil {
		return nil, nil, err
	}
	held, err := s.res.Contract().TokensHeld(ctx, c)
	return c, held, err
}

func tokensHeldOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	_, held, err := s.tokensHeld(ctx, a)
	if err != nil {
		return nil, err
	}
	items, err := loadedItems(ctx, held, self, resolvers.LoadBalanceTokens, func(ctx context.Context, b *db.TokenBalance) (tokenHeld, error) {
		t, err := s.res.TokenBalance().Token(ctx, b)
		return tokenHeldOf(b.TokenAddress, b, t), err
	})
	if err != nil {
		return nil, err
	}
	return emptyIfNil(items), nil
}

// tokenHeldOf is the element of erc20-tokens-held for token, with the contract's balance
// of it (nil: none known) and what the index knows of the token (nil: nothing).
func tokenHeldOf(token db.Felt, b *db.TokenBalance, t *db.Token) tokenHeld {
	out := tokenHeld{Address: addr(token)}
	if b != nil {
		out.Balance, out.LastTransferTime = ptr(b.Balance), ptr(b.LastTransferTime)
	}
	if t != nil {
		out.Decimals, out.IsVerified = t.Decimals, ptr(t.IsVerified)
		if t.Name != nil {
			out.Name = *t.Name
		}
		if t.Symbol != nil {
			out.Symbol = *t.Symbol
		}
		if t.LogoURL != nil {
			out.Logo = *t.LogoURL
		}
	}
	return out
}

// tokenBalancesBody is the answer of GET /beta/contracts/{contractAddress}/token-balances.
type tokenBalancesBody struct {
	ContractAddress string         `json:"contractAddress"`
	TotalUsdValue   float64        `json:"totalUsdValue"`
	Items           []tokenBalance `json:"items"`
}

// tokenBalance is one ERC-20 balance a contract holds now.
type tokenBalance struct {
	TokenAddress string `json:"tokenAddress"`
	tokenNaming
	IsVerified       bool     `json:"isVerified"`
	Balance          string   `json:"balance"`          // in the token's smallest unit
	FormattedBalance *string  `json:"formattedBalance"` // in whole tokens, exact
	UsdPrice         *float64 `json:"usdPrice"`
	UsdValue         *float64 `json:"usdValue"`
	LastTransferTime int64    `json:"lastTransferTime"`
}

func tokenBalancesOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	c, held, err := s.tokensHeld(ctx, a)
	if err != nil {
		return nil, err
	}
	br := s.res.TokenBalance()
	items, err := loadedItems(ctx, held, self, resolvers.LoadBalanceTokens, func(ctx context.Context, b *db.TokenBalance) (out tokenBalance, err error) {
		out = tokenBalance{TokenAddress: addr(b.TokenAddress), Balance: b.Balance, LastTransferTime: b.LastTransferTime}
		t, err := br.Token(ctx, b)
		if err != nil {
			return out, err
		}
		out.tokenNaming = namingOf(t)
		if t != nil {
			out.IsVerified, out.UsdPrice = t.IsVerified, t.UsdPrice
		}
		if out.FormattedBalance, err = br.FormattedBalance(ctx, b); err != nil {
			return out, err
		}
		out.UsdValue, err = br.UsdValue(ctx, b)
		return out, err
	})
	if err != nil {
		return nil, err
	}
	// Largest value first; balances without a price after them, by token address.
	slices.SortStableFunc(items, func(x, y tokenBalance) int {
		switch {
		case x.UsdValue != nil && y.UsdValue != nil && *x.UsdValue != *y.UsdValue:
			return cmp.Compare(*y.UsdValue, *x.UsdValue)
		case (x.UsdValue == nil) != (y.UsdValue == nil):
			if x.UsdValue == nil {
				return 1
			}
			return -1
		}
		return strings.Compare(x.TokenAddress, y.TokenAddress)
	})
	out := tokenBalancesBody{ContractAddress: addr(c.Address), Items: emptyIfNil(items)}
	for _, it := range items {
		if it.UsdValue != nil {
			out.TotalUsdValue += *it.UsdValue
		}
	}
	return out, nil
}

// balanceHistoryBody is the answer of GET /beta/contracts/{contractAddress}/erc20-balance-history.
type balanceHistoryBody struct {
	ContractAddress string         `json:"contractAddress"`
	Timerange       string         `json:"timerange"`
	Items           []tokenHistory `json:"items"`
}

// tokenHistory is the reference's BalanceHistoryResponse item: the erc20-tokens-held
// element of the token (balance and lastTransferTime the latest known, null when the
// contract never held it) with its closing balance per UTC day, oldest first.
type tokenHistory struct {
	tokenHeld
	BalanceHistory []balanceOnDay `json:"balanceHistory"`
}

// balanceOnDay is an element of balanceHistory; the reference does not give its shape.
type balanceOnDay struct {
	Date             string  `json:"date"`      // YYYY-MM-DD, UTC
	Timestamp        int64   `json:"timestamp"` // the day's last second
	Balance          string  `json:"balance"`   // in the token's smallest unit
	FormattedBalance *string `json:"formattedBalance"`
}

func balanceHistoryOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	c, err := s.requireContract(ctx, a.felt("contractAddress"))
	if err != nil {
		return nil, err
	}
	held, err := s.res.Contract().TokensHeld(ctx, c)
	if err != nil {
		return nil, err
	}
	balances := make([]*db.TokenBalance, 0, len(held))
	tokens := []db.Felt{a.felt("token_address")}
	if tokens[0] == nil {
		tokens = tokens[:0]
		for _, b := range held {
			tokens, balances = append(tokens, b.TokenAddress), append(balances, b)
		}
	} else {
		var mine *db.TokenBalance
		for _, b := range held {
			if b.TokenAddress.Equal(tokens[0]) {
				mine = b
			}
		}
		balances = append(balances, mine)
	}
	rng := timeRangeValues[a.str("timerange")]
	infos, err := resolvers.LoadTokens(ctx, tokens)
	if err != nil {
		return nil, err
	}
	series, err := s.res.DailyBalancesOf(ctx, c.Address, tokens, &rng)
	if err != nil {
		return nil, err
	}
	items := make([]tokenHistory, len(tokens))
	for i, token := range tokens {
		t := infos[i]
		items[i] = tokenHistory{tokenHeld: tokenHeldOf(token, balances[i], t), BalanceHistory: []balanceOnDay{}}
		for _, d := range series[i] {
			p := balanceOnDay{Date: d.Date, Timestamp: d.Timestamp, Balance: d.Balance}
			if t != nil && t.Decimals != nil {
				f, err := resolvers.FormatUnits(d.Balance, *t.Decimals)
				if err != nil {
					return nil, err
				}
				p.FormattedBalance = &f
			}
			items[i].BalanceHistory = append(items[i].BalanceHistory, p)
		}
	}
	return balanceHistoryBody{ContractAddress: addr(c.Address), Timerange: a.str("timerange"), Items: items}, nil
}
