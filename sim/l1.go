package sim

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"golang.org/x/crypto/sha3"

	"github.com/starkgraph/starkgraph/rpcserver"
)

// The L1 side of the simulated chain: an Ethereum JSON-RPC node (eth_chainId,
// eth_blockNumber, eth_getLogs) whose Starknet core contract, at its mainnet address, logs
// LogMessageToL2 for every deposit the L2 chain consumes. The deposits of L2 block n are
// sent in L1 block n, one L1 transaction each, in the order the L1_HANDLERs run; the L1
// head runs l1Lead blocks ahead of the L2 head, so messages are on L1 before L2 consumes
// them, as on the real networks. Deposits depend on the seed and the block number only,
// so reorgs of the L2 chain leave L1 untouched.
const l1Lead = 16

var (
	// l1Core is the Starknet core contract on Ethereum mainnet.
	l1Core = "0xc662c410c0ecf747543f5ba90660f6abebd9c8c4"
	// logMessageToL2 is keccak256("LogMessageToL2(address,uint256,uint256,uint256[],uint256,uint256)").
	logMessageToL2 = "0x" + fmt.Sprintf("%x", keccak256([]byte("LogMessageToL2(address,uint256,uint256,uint256[],uint256,uint256)")))
	l1MessageFee   = feltU(1_000_000_000_000) // wei paid to the sequencer per message
)

// l1Message is an L1 -> L2 message as the core contract logs it and the L1_HANDLER
// transaction that consumes it carries it.
type l1Message struct {
	from, to, selector felt // L1 sender (address), L2 recipient contract, L1 handler entry point
	nonce              uint64
	payload            []felt
}

// depositMessage is the message of a StarkGate deposit to account recipient: sent by the
// L1 bridge to the L2 bridge, payload (depositor, recipient, amount low, amount high).
// The core contract numbers messages; accounts are funded in order, ETH then STRK, so
// the nonce 2*recipient (+1 for STRK) is that count.
func (w *world) depositMessage(recipient int, strk bool) l1Message {
	bridge, l1Bridge, amount, nonce := fixedAddr[fixedETHBridge], l1BridgeETH, ethDeposit, uint64(2*recipient)
	if strk {
		bridge, l1Bridge, amount, nonce = fixedAddr[fixedSTRKBridge], l1BridgeSTRK, strkDeposit, nonce+1
	}
	depositor := hash3(w.seed, uint64(recipient), 0xe1)
	depositor = felt{0, depositor[1] & 0xffffffff, depositor[2], depositor[3]} // a 160-bit L1 address
	return l1Message{from: l1Bridge, to: bridge, selector: fnHandleDeposit, nonce: nonce,
		payload: []felt{depositor, w.account(recipient), amount.felt(), {}}}
}

// hash is the message hash L1_HANDLER receipts report: keccak256 of the 32-byte words
// from, to, nonce, selector, payload length, payload.
func (m l1Message) hash() felt {
	words := append([]felt{m.from, m.to, feltU(m.nonce), m.selector, feltU(uint64(len(m.payload)))}, m.payload...)
	buf := make([]byte, 0, 32*len(words))
	for _, f := range words {
		buf = f.appendWord(buf)
	}
	return feltOfWord(keccak256(buf))
}

// depositsAt lists the deposits of block n, in order: every genesis account at block 0,
// the account deployed at n otherwise.
func (w *world) depositsAt(n uint64) []l1Message {
	var out []l1Message
	fund := func(i int) { out = append(out, w.depositMessage(i, false), w.depositMessage(i, true)) }
	if n == 0 {
		for i := 0; i < w.cfg.GenesisAccounts; i++ {
			fund(i)
		}
	} else if i, ok := w.deployedAccountAt(n); ok {
		fund(i)
	}
	return out
}

// L1Path is where Handlers serves the simulated Ethereum node.
const L1Path = "/l1"

// Handlers serves the Ethereum node on L1Path and the Starknet node on every other path.
func (c *Chain) Handlers() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(L1Path, c.L1Handler())
	mux.Handle("/", c.Handler())
	return mux
}

// L1Handler serves the simulated Ethereum node on any path.
func (c *Chain) L1Handler() http.Handler {
	s := rpcserver.New(c.logger)
	s.Register("eth_chainId", func(context.Context, json.RawMessage) (any, error) { return "0x1", nil })
	s.Register("net_version", func(context.Context, json.RawMessage) (any, error) { return "1", nil })
	s.Register("eth_blockNumber", func(context.Context, json.RawMessage) (any, error) { return hexU64(c.l1Head()), nil })
	s.Register("eth_getLogs", c.ethGetLogs)
	return s
}

func (c *Chain) l1Head() uint64 {
	head, _ := c.Head()
	return head + l1Lead
}

// maxL1Range is the widest eth_getLogs block range served, as public nodes cap it.
const maxL1Range = 10_000

// logFilter is eth_getLogs' parameter. Address and each topic position are one value or
// a list of alternatives; null matches anything.
type logFilter struct {
	FromBlock string            `json:"fromBlock"`
	ToBlock   string            `json:"toBlock"`
	Address   json.RawMessage   `json:"address"`
	Topics    []json.RawMessage `json:"topics"`
	BlockHash *string           `json:"blockHash"`
}

func (c *Chain) ethGetLogs(_ context.Context, params json.RawMessage) (any, error) {
	var ps []logFilter
	if err := json.Unmarshal(params, &ps); err != nil || len(ps) != 1 {
		return nil, rpcserver.InvalidParams("eth_getLogs takes one filter object")
	}
	f := ps[0]
	if f.BlockHash != nil {
		return nil, rpcserver.InvalidParams("blockHash filters are not supported by the simulated L1 node")
	}
	head := c.l1Head()
	from, err := l1BlockParam(f.FromBlock, head)
	if err != nil {
		return nil, err
	}
	to, err := l1BlockParam(f.ToBlock, head)
	if err != nil {
		return nil, err
	}
	if to >= from && to-from >= maxL1Range {
		return nil, &rpcserver.Error{Code: -32005, Message: fmt.Sprintf("block range too large: at most %d blocks per query", maxL1Range)}
	}
	to = min(to, head)
	addresses, err := alternatives(f.Address, 20)
	if err != nil {
		return nil, rpcserver.InvalidParams("address: %v", err)
	}
	topicSets := make([][]string, len(f.Topics))
	for i, raw := range f.Topics {
		if topicSets[i], err = alternatives(raw, 32); err != nil {
			return nil, rpcserver.InvalidParams("topics[%d]: %v", i, err)
		}
	}
	if from > to || !matches(addresses, l1Core) {
		return []any{}, nil
	}
	logs := []any{}
	for n := from; n <= to; n++ {
		for j, m := range c.w.depositsAt(n) {
			topics := []string{logMessageToL2, wordHex(m.from), wordHex(m.to), wordHex(m.selector)}
			if !topicsMatch(topicSets, topics) {
				continue
			}
			logs = append(logs, map[string]any{
				"address": l1Core, "topics": topics, "data": m.logData(),
				"blockNumber": hexU64(n), "blockHash": wordHex(c.w.l1Hash(0xb10c, n, 0)),
				"transactionHash": wordHex(c.w.l1Hash(0x7e, n, uint64(j))), "transactionIndex": hexU64(uint64(j)),
				"logIndex": hexU64(uint64(j)), "removed": false,
			})
		}
	}
	return logs, nil
}

// logData is the event's unindexed part, ABI-encoded: (uint256[] payload, uint256 nonce,
// uint256 fee) as the head (offset, nonce, fee) then the array (length, items).
func (m l1Message) logData() string {
	words := append([]felt{feltU(3 * 32), feltU(m.nonce), l1MessageFee, feltU(uint64(len(m.payload)))}, m.payload...)
	var b []byte
	for _, f := range words {
		b = f.appendWord(b)
	}
	return "0x" + fmt.Sprintf("%x", b)
}

// l1Hash is a 32-byte hash for L1 blocks and transactions.
func (w *world) l1Hash(kind, n, j uint64) felt {
	var buf [32]byte
	binary.BigEndian.PutUint64(buf[0:], w.seed)
	binary.BigEndian.PutUint64(buf[8:], kind)
	binary.BigEndian.PutUint64(buf[16:], n)
	binary.BigEndian.PutUint64(buf[24:], j)
	return feltOfWord(keccak256(buf[:]))
}

func l1BlockParam(s string, head uint64) (uint64, error) {
	switch s {
	case "", "latest", "safe", "finalized", "pending":
		return head, nil
	case "earliest":
		return 0, nil
	}
	if !strings.HasPrefix(s, "0x") {
		return 0, rpcserver.InvalidParams("block %q is not a hex quantity or tag", s)
	}
	n, err := strconv.ParseUint(s[2:], 16, 64)
	if err != nil {
		return 0, rpcserver.InvalidParams("block %q is not a hex quantity or tag", s)
	}
	return n, nil
}

// alternatives reads a filter position: null (nil: anything), or one or a list of
// 0x-prefixed hex values of size bytes.
func alternatives(raw json.RawMessage, size int) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var many []string
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		many = []string{one}
	} else if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("want a hex string, a list of them, or null")
	}
	for i, v := range many {
		if _, err := hex.DecodeString(strings.TrimPrefix(v, "0x")); err != nil || !strings.HasPrefix(v, "0x") || len(v) != 2+2*size {
			return nil, fmt.Errorf("%q is not %d bytes of 0x-prefixed hex", v, size)
		}
		many[i] = strings.ToLower(v)
	}
	return many, nil
}

func matches(set []string, v string) bool {
	if set == nil {
		return true
	}
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}

func topicsMatch(sets [][]string, topics []string) bool {
	if len(sets) > len(topics) {
		return false
	}
	for i, set := range sets {
		if !matches(set, topics[i]) {
			return false
		}
	}
	return true
}

func keccak256(b []byte) []byte {
	h := sha3.NewLegacyKeccak256()
	h.Write(b)
	return h.Sum(nil)
}

// appendWord appends f as a 32-byte big-endian word.
func (f felt) appendWord(b []byte) []byte {
	for _, limb := range f {
		b = binary.BigEndian.AppendUint64(b, limb)
	}
	return b
}

func feltOfWord(b []byte) felt {
	var f felt
	for i := range f {
		f[i] = binary.BigEndian.Uint64(b[8*i:])
	}
	return f
}

// wordHex is f as Ethereum writes a 32-byte word: 64 hex digits.
func wordHex(f felt) string { return fmt.Sprintf("0x%016x%016x%016x%016x", f[0], f[1], f[2], f[3]) }

func hexU64(n uint64) string { return "0x" + strconv.FormatUint(n, 16) }
