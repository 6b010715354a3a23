package rest

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/loaders"
)

// blockItem is an item of GET /beta/blocks.
type blockItem struct {
	BlockNumber          int64   `json:"blockNumber"`
	Hash                 *string `json:"hash"`
	Timestamp            int64   `json:"timestamp"`
	StateRoot            *string `json:"stateRoot"`
	TxnCount             int     `json:"txnCount"`
	MessageCount         int     `json:"messageCount"`
	EventCount           int     `json:"eventCount"`
	L1VerificationTxHash *string `json:"l1VerificationTxHash"`
	Status               *string `json:"status"`
}

// blockDetails is the answer of GET /beta/blocks/{blockHash}.
type blockDetails struct {
	blockItem
	ParentHash        string  `json:"parentHash"`
	SequencerAddress  *string `json:"sequencerAddress"`
	StarknetVersion   string  `json:"starknetVersion"`
	L1DaMode          *string `json:"l1DaMode"`
	L1GasPriceWei     *string `json:"l1GasPriceWei"`
	L1GasPriceFri     *string `json:"l1GasPriceFri"`
	L1DataGasPriceWei *string `json:"l1DataGasPriceWei"`
	L1DataGasPriceFri *string `json:"l1DataGasPriceFri"`
	L2GasPriceWei     *string `json:"l2GasPriceWei"`
	L2GasPriceFri     *string `json:"l2GasPriceFri"`
}

// statusAcceptedOnL1 is the display status of finalized blocks and transactions.
const statusAcceptedOnL1 = "Accepted on L1"

func listBlocksOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	pg := pageOf(a)
	conn, err := s.res.Query().Blocks(ctx, &pg.first, pg.after)
	if err != nil {
		return nil, err
	}
	return pageRows(pg, conn.Edges, conn.TotalCount, func(e *model.BlockEdge) blockItem { return blockItemOf(e.Node) }), nil
}

func blockItemOf(b *db.Block) blockItem {
	status := b.Status()
	return blockItem{
		BlockNumber: b.Number, Hash: hexOrNil(b.Hash), Timestamp: b.Timestamp, StateRoot: hexOrNil(b.StateRoot),
		TxnCount: b.TxnCount, MessageCount: b.MessageCount, EventCount: b.EventCount,
		L1VerificationTxHash: hexOrNil(b.L1VerificationTxHash), Status: &status,
	}
}

// lookupBlock finds a block by number, hash or "pre_confirmed" (the pending block, when
// the node has one); nil when there is none.
func (s *server) lookupBlock(ctx context.Context, param, id string) (*db.Block, error) {
	q := s.res.Query()
	switch {
	case strings.EqualFold(id, "pre_confirmed"):
		b, err := q.Block(ctx, nil, nil)
		if err != nil || b == nil {
			return nil, err
		}
		if b.Status() != "Pre-confirmed" {
			return nil, nil
		}
		return b, nil
	case strings.HasPrefix(id, "0x") || strings.HasPrefix(id, "0X"):
		hash, err := db.ParseFelt(id)
		if err != nil {
			return nil, badRequest("%s: %q %v", param, short(id), err)
		}
		return q.Block(ctx, nil, hash)
	default:
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil || n < 0 || n > 1<<53 {
			return nil, badRequest("%s: %q is not a block number, a 0x block hash or pre_confirmed", param, short(id))
		}
		num := int(n)
		return q.Block(ctx, &num, nil)
	}
}

// requireBlock reads the block that parameter param names (see lookupBlock), and answers
// 404 when there is none.
func (s *server) requireBlock(ctx context.Context, a *args, param string) (*db.Block, error) {
	b, err := s.lookupBlock(ctx, param, a.str(param))
	return found(b, err, "%s: no block %s", param, short(a.str(param)))
}

// oneBlock reads the optional block parameter param of a list filter as the number of the
// one block to list (nil when the parameter is absent).
func (s *server) oneBlock(ctx context.Context, a *args, param string) (*int, error) {
	if !a.has(param) {
		return nil, nil
	}
	b, err := s.requireBlock(ctx, a, param)
	if err != nil {
		return nil, err
	}
	n := int(b.Number)
	return &n, nil
}

func blockOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	b, err := s.requireBlock(ctx, a, "blockHash")
	if err != nil {
		return nil, err
	}
	out := blockDetails{
		blockItem: blockItemOf(b), ParentHash: b.ParentHash.Hex(), SequencerAddress: addrOrNil(b.SequencerAddress),
		StarknetVersion: b.StarknetVersion, L1DaMode: b.L1DaMode,
		L1GasPriceWei: b.L1GasPriceWei, L1GasPriceFri: b.L1GasPriceFri,
		L1DataGasPriceWei: b.L1DataGasPriceWei, L1DataGasPriceFri: b.L1DataGasPriceFri,
		L2GasPriceWei: b.L2GasPriceWei, L2GasPriceFri: b.L2GasPriceFri,
	}
	if *out.Status == statusAcceptedOnL1 {
		return final{out}, nil
	}
	return out, nil
}

// classItem is an item of GET /beta/classes.
type classItem struct {
	Hash string `json:"hash"`
	// TransactionHash is the declaring transaction's hash; null for a class the index
	// met only through a deployment (declared before the first indexed block).
	TransactionHash   *string `json:"transactionHash"`
	Version           *string `json:"version"`
	Type              *int    `json:"type"`
	IsAccount         *bool   `json:"isAccount"`
	IsProxy           *bool   `json:"isProxy"`
	IsErcToken        *bool   `json:"isErcToken"`
	CreationTimestamp *int64  `json:"creationTimestamp"`
}

// classDetails is the answer of GET /beta/classes/{classHash}.
type classDetails struct {
	classItem
	Kind              string  `json:"kind"`
	BlockNumber       *int64  `json:"blockNumber"`
	CompiledClassHash *string `json:"compiledClassHash"`
	Alias             *string `json:"alias"`
	IsVerified        bool    `json:"isVerified"`
	VerifiedName      *string `json:"verifiedName"`
	VerifiedTimestamp *int64  `json:"verifiedTimestamp"`
	Abi               any     `json:"abi" schema:"any"`
	// Verified is the class's verification record; null when it is not verified. The
	// sources themselves are served by /beta/classes/{classHash}/source.
	Verified *verifiedRecord `json:"verified"`
}

func listClassesOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	pg := pageOf(a)
	conn, err := s.res.Query().Classes(ctx, &pg.first, pg.after)
	if err != nil {
		return nil, err
	}
	return pageRows(pg, conn.Edges, conn.TotalCount, func(e *model.ClassEdge) classItem { return classItemOf(e.Node) }), nil
}

func classItemOf(c *db.Class) classItem {
	typ, erc := c.CairoVersion, c.IsErcToken()
	return classItem{
		Hash: addr(c.Hash), TransactionHash: hexOrNil(c.DeclaredTxHash), Version: ptr(c.Version), Type: &typ,
		IsAccount: ptr(c.IsAccount), IsProxy: ptr(c.IsProxy), IsErcToken: &erc, CreationTimestamp: c.DeclaredAt,
	}
}

func (s *server) requireClass(ctx context.Context, hash db.Felt) (*db.Class, error) {
	c, err := s.res.Query().Class(ctx, hash)
	return found(c, err, "classHash: no class %s", addr(hash))
}

func classOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	c, err := s.requireClass(ctx, a.felt("classHash"))
	if err != nil {
		return nil, err
	}
	out := classDetails{classItem: classItemOf(c), Kind: c.Kind, BlockNumber: c.DeclaredBlock, CompiledClassHash: hexOrNil(c.CompiledClassHash)}
	if c.ABI != nil {
		out.Abi = c.ABI
	}
	if out.Alias, err = s.res.Class().Alias(ctx, c); err != nil {
		return nil, err
	}
	if out.IsVerified, out.VerifiedName, out.VerifiedTimestamp, err = s.verification(ctx, c); err != nil {
		return nil, err
	}
	if out.IsVerified {
		if out.Verified, err = s.verifiedRecord(ctx, c); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// requireClassHeader is requireClass for a route that does not show the class's ABI: the
// class without it and its verification in one statement, put in the request's loaders.
func (s *server) requireClassHeader(ctx context.Context, hash db.Felt) (*db.Class, error) {
	c, verified, err := s.res.Store.ClassWithVerification(ctx, hash)
	if err != nil || c == nil {
		return found[db.Class](nil, err, "classHash: no class %s", addr(hash))
	}
	l := loaders.For(ctx)
	l.Class.Prime(ctx, string(c.Hash), c)
	l.VerifiedClass.Prime(ctx, string(c.Hash), verified)
	return c, nil
}

func classContractsOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	c, err := s.requireClassHeader(ctx, a.felt("classHash"))
	if err != nil {
		return nil, err
	}
	pg := pageOf(a)
	conn, err := s.res.Class().Contracts(ctx, c, &pg.first, pg.after)
	if err != nil {
		return nil, err
	}
	return s.contractPage(ctx, pg, conn)
}

// verifiedClassItem is an item of GET /beta/classes/verified.
type verifiedClassItem struct {
	ClassHash         string `json:"classHash"`
	VerifiedTimestamp int64  `json:"verifiedTimestamp"`
	VerifiedName      string `json:"verifiedName"`
}

func verifiedClassesOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	pg := pageOf(a)
	conn, err := s.res.Query().VerifiedClasses(ctx, &pg.first, pg.after)
	if err != nil {
		return nil, err
	}
	items := make([]verifiedClassItem, 0, len(conn.Edges))
	for _, e := range conn.Edges {
		items = append(items, verifiedClassItem{ClassHash: addr(e.Node.ClassHash), VerifiedTimestamp: e.Node.VerifiedTimestamp, VerifiedName: e.Node.VerifiedName})
	}
	return pageList[verifiedClassItem]{Items: items, LastPage: lastPage(conn.TotalCount, pg.size)}, nil
}
