package rpc

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/class"
)

// Spec is the JSON-RPC spec version a node speaks (starknet_specVersion).
type Spec struct {
	Raw          string // as the node said it, e.g. "0.8.1"
	Major, Minor int
}

// Supported reports whether this package has been checked against the version: 0.8, 0.9
// and 0.10 (whose extra members are ignored).
func (s Spec) Supported() bool { return s.Major == 0 && s.Minor >= 8 && s.Minor <= 10 }

// preConfirmedTag is the tag for the block being built: "pending" before 0.9.
func (s Spec) preConfirmedTag() string {
	if s.Major == 0 && s.Minor < 9 {
		return "pending"
	}
	return "pre_confirmed"
}

func parseSpec(v string) (Spec, error) {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return Spec{}, fmt.Errorf("spec version %q is not major.minor[.patch]", v)
	}
	maj, err1 := strconv.Atoi(parts[0])
	minr, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return Spec{}, fmt.Errorf("spec version %q is not major.minor[.patch]", v)
	}
	return Spec{Raw: v, Major: maj, Minor: minr}, nil
}

// SpecVersion asks the node which spec version it speaks.
func (c *Client) SpecVersion(ctx context.Context) (string, error) {
	var v *string
	if err := c.call(ctx, "starknet_specVersion", nil, nil, &v); err != nil {
		return "", err
	}
	if v == nil {
		return "", invalid("starknet_specVersion", nil, "null result")
	}
	return *v, nil
}

// Spec returns the node's spec version, asking once and remembering the answer. The
// decoding of this package is the same for all supported versions; the version only picks
// the block tag names. Callers should refuse to index from a node whose Spec is not
// Supported.
func (c *Client) Spec(ctx context.Context) (Spec, error) {
	c.specMu.Lock()
	defer c.specMu.Unlock()
	if c.spec != nil {
		return *c.spec, nil
	}
	raw, err := c.SpecVersion(ctx)
	if err != nil {
		return Spec{}, err
	}
	s, err := parseSpec(raw)
	if err != nil {
		return Spec{}, invalid("starknet_specVersion", nil, "%v", err)
	}
	c.spec = &s
	return s, nil
}

// ChainID returns the chain id, e.g. 0x534e5f4d41494e (SN_MAIN).
func (c *Client) ChainID(ctx context.Context) (Felt, error) {
	var v *Felt
	if err := c.call(ctx, "starknet_chainId", nil, nil, &v); err != nil {
		return Felt{}, err
	}
	if v == nil {
		return Felt{}, invalid("starknet_chainId", nil, "null result")
	}
	return *v, nil
}

// BlockNumber returns the number of the latest accepted block.
func (c *Client) BlockNumber(ctx context.Context) (uint64, error) {
	var v *uint64
	if err := c.call(ctx, "starknet_blockNumber", nil, nil, &v); err != nil {
		return 0, err
	}
	if v == nil {
		return 0, invalid("starknet_blockNumber", nil, "null result")
	}
	return *v, nil
}

// BlockHashAndNumber returns the hash and number of the latest accepted block.
func (c *Client) BlockHashAndNumber(ctx context.Context) (BlockHashAndNumber, error) {
	var v *struct {
		Hash   *Felt   `json:"block_hash"`
		Number *uint64 `json:"block_number"`
	}
	if err := c.call(ctx, "starknet_blockHashAndNumber", nil, nil, &v); err != nil {
		return BlockHashAndNumber{}, err
	}
	if v == nil || v.Hash == nil || v.Number == nil {
		return BlockHashAndNumber{}, invalid("starknet_blockHashAndNumber", nil, "missing block_hash or block_number")
	}
	return BlockHashAndNumber{Hash: *v.Hash, Number: *v.Number}, nil
}

// BlockID names a block: by number, by hash or by tag. The zero value is the latest block.
type BlockID struct {
	number *uint64
	hash   *Felt
	tag    string // latest, l1_accepted, pre_confirmed
}

// Latest is the latest accepted block.
func Latest() BlockID { return BlockID{tag: "latest"} }

// PreConfirmed is the block being built (called "pending" by 0.8 nodes; the client renames).
func PreConfirmed() BlockID { return BlockID{tag: "pre_confirmed"} }

// AtNumber names a block by number.
func AtNumber(n uint64) BlockID { return BlockID{number: &n} }

// AtHash names a block by hash.
func AtHash(h Felt) BlockID { return BlockID{hash: &h} }

func (b BlockID) String() string {
	switch {
	case b.number != nil:
		return strconv.FormatUint(*b.number, 10)
	case b.hash != nil:
		return b.hash.Hex()
	case b.tag != "":
		return b.tag
	}
	return "latest"
}

func (c *Client) blockIDParam(ctx context.Context, b BlockID) (any, error) {
	switch {
	case b.number != nil:
		return map[string]uint64{"block_number": *b.number}, nil
	case b.hash != nil:
		return map[string]Felt{"block_hash": *b.hash}, nil
	case b.tag == "pre_confirmed":
		s, err := c.Spec(ctx)
		if err != nil {
			return nil, err
		}
		return s.preConfirmedTag(), nil
	case b.tag != "":
		return b.tag, nil
	}
	return "latest", nil
}

func numberParam(n uint64) map[string]any {
	return map[string]any{"block_id": map[string]uint64{"block_number": n}}
}

// BlockWithReceipts fetches block n with all transactions and receipts, checks that the
// required members are there, and normalises it. A block the node does not have gives an
// error matching ErrBlockNotFound.
func (c *Client) BlockWithReceipts(ctx context.Context, n uint64) (*Block, error) {
	const method = "starknet_getBlockWithReceipts"
	var w *wireBlock
	if err := c.call(ctx, method, &n, numberParam(n), &w); err != nil {
		return nil, err
	}
	return checkBlock(method, n, w)
}

func checkBlock(method string, n uint64, w *wireBlock) (*Block, error) {
	if w == nil {
		return nil, invalid(method, &n, "null result")
	}
	b, err := w.normalise()
	if err != nil {
		return nil, &InvalidResponseError{Method: method, Block: &n, Err: err}
	}
	if b.Number != n {
		return nil, invalid(method, &n, "node returned block %d", b.Number)
	}
	// A block asked for by number is final enough to index; anything else (a pre-confirmed
	// block served under a number) must not be written.
	if b.Status != AcceptedOnL2 && b.Status != AcceptedOnL1 {
		return nil, invalid(method, &n, "block status %q is not ACCEPTED_ON_L2 or ACCEPTED_ON_L1", truncate(b.Status, 40))
	}
	return b, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// BlockTxHashes fetches a block's header and transaction hashes. Unlike the other block
// methods it takes a BlockID, so it also answers "what is the latest block" in one call;
// a pre-confirmed block has no hash and is refused as invalid.
func (c *Client) BlockTxHashes(ctx context.Context, block BlockID) (*BlockTxHashes, error) {
	const method = "starknet_getBlockWithTxHashes"
	bid, err := c.blockIDParam(ctx, block)
	if err != nil {
		return nil, err
	}
	var w *wireBlockTxHashes
	if err := c.call(ctx, method, block.number, map[string]any{"block_id": bid}, &w); err != nil {
		return nil, err
	}
	return checkBlockTxHashes(method, block.number, block.hash, w)
}

// PreConfirmedBlock is the block the sequencer is building: a 0.9 node gives its number,
// a 0.8 node ("pending") its parent instead.
type PreConfirmedBlock struct {
	Number            *uint64
	ParentHash        *Felt
	Timestamp         uint64
	TransactionHashes []Felt
}

// PreConfirmed fetches the block being built, with the hashes of its transactions so far.
func (c *Client) PreConfirmed(ctx context.Context) (*PreConfirmedBlock, error) {
	const method = "starknet_getBlockWithTxHashes"
	bid, err := c.blockIDParam(ctx, PreConfirmed())
	if err != nil {
		return nil, err
	}
	var w *wireBlockTxHashes
	if err := c.call(ctx, method, nil, map[string]any{"block_id": bid}, &w); err != nil {
		return nil, err
	}
	switch {
	case w == nil:
		return nil, invalid(method, nil, "null result")
	case w.Timestamp == nil || w.Transactions == nil:
		return nil, invalid(method, nil, "the block being built has no timestamp or transactions")
	case w.BlockNumber == nil && w.ParentHash == nil:
		return nil, invalid(method, nil, "the block being built has neither block_number nor parent_hash")
	}
	return &PreConfirmedBlock{Number: w.BlockNumber, ParentHash: w.ParentHash, Timestamp: *w.Timestamp,
		TransactionHashes: *w.Transactions}, nil
}

// checkBlockTxHashes checks and normalises a block header with hashes that was asked for
// by number or by hash (either may be nil).
func checkBlockTxHashes(method string, number *uint64, hash *Felt, w *wireBlockTxHashes) (*BlockTxHashes, error) {
	if w == nil {
		return nil, invalid(method, number, "null result")
	}
	b, err := w.normalise()
	if err != nil {
		return nil, &InvalidResponseError{Method: method, Block: number, Err: err}
	}
	if number != nil && b.Number != *number {
		return nil, invalid(method, number, "node returned block %d", b.Number)
	}
	if hash != nil && b.Hash != *hash {
		return nil, invalid(method, nil, "asked for block %s, node returned %s", hash, b.Hash)
	}
	return b, nil
}

// BlocksWithReceipts fetches blocks from..to (inclusive) in one batch request. It returns
// the blocks in order up to the first one that failed, and that block's error (wrapped, so
// errors.Is(err, ErrBlockNotFound) tells that the range ran past the head).
func (c *Client) BlocksWithReceipts(ctx context.Context, from, to uint64) ([]*Block, error) {
	return fetchRange[*BlockCall, *Block](ctx, c, from, to, (*MixedBatch).BlockWithReceipts)
}

// fetchRange sends one call per block of from..to in one batch (add puts block n's call in
// the batch) and returns the results in order up to the first failure, and its error.
func fetchRange[C interface{ Result() (T, error) }, T any](ctx context.Context, c *Client, from, to uint64, add func(*MixedBatch, uint64) C) ([]T, error) {
	if err := checkRange(from, to); err != nil {
		return nil, err
	}
	var batch MixedBatch
	calls := make([]C, 0, to-from+1)
	for n := from; n <= to; n++ {
		calls = append(calls, add(&batch, n))
	}
	if err := c.Send(ctx, &batch); err != nil {
		return nil, err
	}
	out := make([]T, 0, len(calls))
	for i, call := range calls {
		v, err := call.Result()
		if err != nil {
			return out, fmt.Errorf("block %d: %w", from+uint64(i), err)
		}
		out = append(out, v)
	}
	return out, nil
}

// MaxBatchBlocks bounds one batch request; a node or the response size limit usually
// call for far fewer (tens of blocks).
const MaxBatchBlocks = 1000

func checkRange(from, to uint64) error {
	if to < from || to-from >= MaxBatchBlocks {
		return fmt.Errorf("block range %d..%d: want from <= to and at most %d blocks", from, to, MaxBatchBlocks)
	}
	return nil
}

// StateUpdate fetches the state diff of block n.
func (c *Client) StateUpdate(ctx context.Context, n uint64) (*StateUpdate, error) {
	const method = "starknet_getStateUpdate"
	var w *wireStateUpdate
	if err := c.call(ctx, method, &n, numberParam(n), &w); err != nil {
		return nil, err
	}
	return checkStateUpdate(method, n, w)
}

func checkStateUpdate(method string, n uint64, w *wireStateUpdate) (*StateUpdate, error) {
	if w == nil {
		return nil, invalid(method, &n, "null result")
	}
	s, err := w.normalise()
	if err != nil {
		return nil, &InvalidResponseError{Method: method, Block: &n, Err: err}
	}
	s.BlockNumber = n
	return s, nil
}

// StateUpdates fetches the state diffs of blocks from..to (inclusive) in one batch, with
// the same partial-result rule as BlocksWithReceipts.
func (c *Client) StateUpdates(ctx context.Context, from, to uint64) ([]*StateUpdate, error) {
	return fetchRange[*StateUpdateCall, *StateUpdate](ctx, c, from, to, (*MixedBatch).StateUpdate)
}

// Class fetches and parses a class by hash (starknet_getClass). The parsed class keeps the
// raw JSON for storage.
func (c *Client) Class(ctx context.Context, block BlockID, classHash Felt) (*class.Class, error) {
	const method = "starknet_getClass"
	bid, err := c.blockIDParam(ctx, block)
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	if err := c.call(ctx, method, nil, map[string]any{"block_id": bid, "class_hash": classHash}, &raw); err != nil {
		return nil, err
	}
	return parseClass(method, classHash, raw)
}

// ClassHashAt returns the class hash of the contract at address.
func (c *Client) ClassHashAt(ctx context.Context, block BlockID, address Felt) (Felt, error) {
	const method = "starknet_getClassHashAt"
	bid, err := c.blockIDParam(ctx, block)
	if err != nil {
		return Felt{}, err
	}
	var v *Felt
	if err := c.call(ctx, method, nil, map[string]any{"block_id": bid, "contract_address": address}, &v); err != nil {
		return Felt{}, err
	}
	if v == nil {
		return Felt{}, invalid(method, nil, "null result for %s", address.Padded())
	}
	return *v, nil
}

// Call runs a view function (starknet_call) and returns its result felts.
func (c *Client) Call(ctx context.Context, contract, selector Felt, calldata []Felt, block BlockID) ([]Felt, error) {
	const method = "starknet_call"
	bid, err := c.blockIDParam(ctx, block)
	if err != nil {
		return nil, err
	}
	var v *[]Felt
	if err := c.call(ctx, method, nil, callParams(contract, selector, calldata, bid), &v); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, invalid(method, nil, "null result")
	}
	return *v, nil
}

// CallByName is Call with the selector computed from a function name.
func (c *Client) CallByName(ctx context.Context, contract Felt, function string, calldata []Felt, block BlockID) ([]Felt, error) {
	return c.Call(ctx, contract, starknet.Selector(function), calldata, block)
}
