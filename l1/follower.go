// Package l1 follows Ethereum for what the Starknet chain does not say itself: the L1
// transaction that sent each L1 -> L2 message. It reads the Starknet core contract's
// LogMessageToL2 events over JSON-RPC (go-ethereum's client), computes each message's
// hash as the L1_HANDLER receipt reports it, and stores the pair; the indexer and the
// follower both give matching L1_HANDLER transactions their l1_transaction_hash.
package l1

import (
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
)

// Core contract addresses of the Starknet networks on Ethereum.
var (
	MainnetCore = common.HexToAddress("0xc662c410C0ECf747543f5bA90660f6ABeBD9C8c4")
	SepoliaCore = common.HexToAddress("0xE2Bb56ee936fd6433DC0F6e7e3b8365C906AA057")
)

// coreABI is the one event of the core contract the follower reads.
const coreABI = `[{"type":"event","name":"LogMessageToL2","anonymous":false,"inputs":[
	{"name":"fromAddress","type":"address","indexed":true},
	{"name":"toAddress","type":"uint256","indexed":true},
	{"name":"selector","type":"uint256","indexed":true},
	{"name":"payload","type":"uint256[]","indexed":false},
	{"name":"nonce","type":"uint256","indexed":false},
	{"name":"fee","type":"uint256","indexed":false}]}]`

var logMessageToL2 = func() abi.Event {
	parsed, err := abi.JSON(strings.NewReader(coreABI))
	if err != nil {
		panic(err)
	}
	return parsed.Events["LogMessageToL2"]
}()

// Config is how the follower runs.
type Config struct {
	RPCURL        string         // an Ethereum JSON-RPC node
	Core          common.Address // the Starknet core contract
	FromBlock     uint64         // the first L1 block to read on the first run
	Confirmations uint64         // blocks below the L1 head that are read (a reorg above them is not seen)
	Range         uint64         // L1 blocks per eth_getLogs; default 2000
	Poll          time.Duration  // how often it asks for new blocks once caught up; default 12s
	DB            *sqlx.DB
	Logger        *slog.Logger
}

// Run reads L1 until ctx ends, resuming where it stopped; errors of the node are logged
// and retried.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Range == 0 {
		cfg.Range = 2000
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 12 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	log := cfg.Logger.With("component", "l1")
	client, err := ethclient.DialContext(ctx, cfg.RPCURL)
	if err != nil {
		return fmt.Errorf("l1: %w", err)
	}
	defer client.Close()
	for ctx.Err() == nil {
		caughtUp, err := step(ctx, client, cfg)
		if err != nil && ctx.Err() == nil {
			log.Warn("reading L1 messages failed; retrying", "err", err)
		}
		if err != nil || caughtUp {
			select {
			case <-ctx.Done():
			case <-time.After(cfg.Poll):
			}
		}
	}
	return nil
}

// step reads one range of blocks; caughtUp when nothing is left below the confirmed head.
func step(ctx context.Context, client *ethclient.Client, cfg Config) (caughtUp bool, err error) {
	next, ok, err := db.L1NextBlock(ctx, cfg.DB)
	if err != nil {
		return false, err
	}
	if !ok {
		next = int64(cfg.FromBlock)
	}
	head, err := client.BlockNumber(ctx)
	if err != nil {
		return false, err
	}
	if head < cfg.Confirmations || uint64(next) > head-cfg.Confirmations {
		return true, nil
	}
	to := min(uint64(next)+cfg.Range-1, head-cfg.Confirmations)
	logs, err := client.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: new(big.Int).SetUint64(uint64(next)), ToBlock: new(big.Int).SetUint64(to),
		Addresses: []common.Address{cfg.Core}, Topics: [][]common.Hash{{logMessageToL2.ID}},
	})
	if err != nil {
		return false, err
	}
	msgs := make([]db.L1Message, 0, len(logs))
	for _, l := range logs {
		hash, err := messageHashOf(l.Topics, l.Data)
		if err != nil {
			cfg.Logger.Warn("l1: unreadable LogMessageToL2", "tx", l.TxHash, "err", err)
			continue
		}
		msgs = append(msgs, db.L1Message{MessageHash: hash, L1TxHash: l.TxHash.Bytes(), L1Block: int64(l.BlockNumber), L1LogIndex: int(l.Index)})
	}
	if err := db.RecordL1Messages(ctx, cfg.DB, msgs, int64(to)+1); err != nil {
		return false, err
	}
	return to == head-cfg.Confirmations, nil
}

// messageHashOf reads a LogMessageToL2 event and returns its message's hash.
func messageHashOf(topics []common.Hash, data []byte) ([]byte, error) {
	if len(topics) != 4 || topics[0] != logMessageToL2.ID {
		return nil, fmt.Errorf("not a LogMessageToL2 event (%d topics)", len(topics))
	}
	values, err := logMessageToL2.Inputs.NonIndexed().Unpack(data)
	if err != nil || len(values) != 3 {
		return nil, fmt.Errorf("event data: %v", err)
	}
	payload, ok1 := values[0].([]*big.Int)
	nonce, ok2 := values[1].(*big.Int)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("event data of unexpected types")
	}
	return MessageHash(new(big.Int).SetBytes(topics[1].Bytes()), topics[2].Big(), nonce, topics[3].Big(), payload), nil
}

// MessageHash is the hash of an L1 -> L2 message as the Starknet core contract computes it
// and L1_HANDLER receipts report it: keccak256 of the 32-byte words from address, to
// address, nonce, selector, payload length, payload.
func MessageHash(from, to, nonce, selector *big.Int, payload []*big.Int) []byte {
	words := make([][]byte, 0, 5+len(payload))
	for _, v := range append([]*big.Int{from, to, nonce, selector, big.NewInt(int64(len(payload)))}, payload...) {
		words = append(words, common.BigToHash(v).Bytes())
	}
	return crypto.Keccak256(words...)
}
