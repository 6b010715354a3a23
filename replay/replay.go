// Package replay serves a fixture set of ../shared/fixtures/starknet (real blocks,
// state updates and classes) as a Starknet JSON-RPC 0.8.1 node, following the
// "Serving these files" hints of the fixtures README. Fixture bytes are served as
// they are stored: nothing is decoded and re-encoded on the way, so numbers and
// member order reach the client unchanged. Derived answers (getBlockWithTxs,
// getBlockWithTxHashes, getEvents) are spliced together from the stored bytes.
package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/starkgraph/starkgraph/rpcserver"
)

// Set is one loaded fixture set.
type Set struct {
	Name       string
	ChainID    string
	FirstBlock uint64
	LastBlock  uint64

	blocks       map[uint64]*block
	byHash       map[string]uint64
	stateUpdates map[uint64]json.RawMessage
	classes      map[string]json.RawMessage // canonical class hash -> getClass result
	contracts    map[string]string          // canonical address -> class hash
	events       []emittedEvent             // every event of the set, in chain order
	txs          map[string]txRef           // transaction hash -> where it is

	rpc *rpcserver.Server
}

type block struct {
	number       uint64
	hash         string
	withReceipts json.RawMessage // blocks/<n>.json as stored
	withTxs      json.RawMessage // derived
	withHashes   json.RawMessage // derived
	txs          []txWithReceipt
}

type txWithReceipt struct {
	hash    string
	tx      json.RawMessage
	receipt json.RawMessage
}

type txRef struct {
	block uint64
	index int
}

type emittedEvent struct {
	blockNumber uint64
	fromAddress string
	keys        []string
	json        json.RawMessage // EMITTED_EVENT, ready to send
}

type manifest struct {
	ChainID    string `json:"chain_id"`
	FirstBlock uint64 `json:"first_block"`
	LastBlock  uint64 `json:"last_block"`
}

// Load reads a fixture set directory (the one holding manifest.json). Where the
// set has an rpc_0_8_1/ view, its blocks and state updates are used.
func Load(dir string) (*Set, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("replay: manifest.json: %w", err)
	}
	chainID, err := rpcserver.CanonicalFelt(m.ChainID)
	if err != nil {
		return nil, fmt.Errorf("replay: manifest.json chain_id: %w", err)
	}
	s := &Set{
		Name: filepath.Base(filepath.Clean(dir)), ChainID: chainID, FirstBlock: m.FirstBlock, LastBlock: m.LastBlock,
		blocks: map[uint64]*block{}, byHash: map[string]uint64{}, stateUpdates: map[uint64]json.RawMessage{},
		classes: map[string]json.RawMessage{}, contracts: map[string]string{}, txs: map[string]txRef{},
	}
	view := dir
	if st, err := os.Stat(filepath.Join(dir, "rpc_0_8_1", "blocks")); err == nil && st.IsDir() {
		view = filepath.Join(dir, "rpc_0_8_1")
	}
	if err := s.loadBlocks(filepath.Join(view, "blocks")); err != nil {
		return nil, err
	}
	if err := s.loadStateUpdates(filepath.Join(view, "state_updates")); err != nil {
		return nil, err
	}
	if err := s.loadClasses(filepath.Join(dir, "classes")); err != nil {
		return nil, err
	}
	if err := s.loadContracts(filepath.Join(dir, "contracts.json")); err != nil {
		return nil, err
	}
	if _, ok := s.blocks[s.LastBlock]; !ok {
		return nil, fmt.Errorf("replay: manifest last_block %d has no blocks/%d.json", s.LastBlock, s.LastBlock)
	}
	s.rpc = s.newServer(nil)
	return s, nil
}

// numberedFiles lists <n>.json files of a directory by block number; a missing
// directory is an empty list.
func numberedFiles(dir string) (map[uint64]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	out := map[uint64]string{}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue
		}
		n, err := strconv.ParseUint(name, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("replay: %s: file name is not a block number", filepath.Join(dir, e.Name()))
		}
		out[n] = filepath.Join(dir, e.Name())
	}
	return out, nil
}

func (s *Set) loadBlocks(dir string) error {
	files, err := numberedFiles(dir)
	if err != nil {
		return err
	}
	numbers := make([]uint64, 0, len(files))
	for n := range files {
		numbers = append(numbers, n)
	}
	sort.Slice(numbers, func(i, j int) bool { return numbers[i] < numbers[j] })
	for _, n := range numbers {
		raw, err := os.ReadFile(files[n])
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		b, err := parseBlock(raw)
		if err != nil {
			return fmt.Errorf("replay: %s: %w", files[n], err)
		}
		if b.number != n {
			return fmt.Errorf("replay: %s holds block %d", files[n], b.number)
		}
		s.blocks[n] = b
		s.byHash[b.hash] = n
		for i, t := range b.txs {
			s.txs[t.hash] = txRef{block: n, index: i}
			evs, err := emittedEvents(b, t)
			if err != nil {
				return fmt.Errorf("replay: %s: transaction %d: %w", files[n], i, err)
			}
			s.events = append(s.events, evs...)
		}
	}
	return nil
}

// member is one member of a JSON object, kept raw and in order.
type member struct {
	key   string
	value json.RawMessage
}

// objectMembers splits a JSON object into its members in document order.
func objectMembers(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key, v})
	}
	return out, nil
}

func parseBlock(raw []byte) (*block, error) {
	members, err := objectMembers(raw)
	if err != nil {
		return nil, err
	}
	b := &block{withReceipts: raw}
	var header []member
	for _, m := range members {
		switch m.key {
		case "block_number":
			if err := json.Unmarshal(m.value, &b.number); err != nil {
				return nil, fmt.Errorf("block_number: %w", err)
			}
		case "block_hash":
			var h string
			if err := json.Unmarshal(m.value, &h); err != nil {
				return nil, fmt.Errorf("block_hash: %w", err)
			}
			if b.hash, err = rpcserver.CanonicalFelt(h); err != nil {
				return nil, fmt.Errorf("block_hash: %w", err)
			}
		case "transactions":
			var list []struct {
				Transaction json.RawMessage `json:"transaction"`
				Receipt     json.RawMessage `json:"receipt"`
			}
			if err := json.Unmarshal(m.value, &list); err != nil {
				return nil, fmt.Errorf("transactions: %w", err)
			}
			for i, t := range list {
				var r struct {
					Hash string `json:"transaction_hash"`
				}
				if err := json.Unmarshal(t.Receipt, &r); err != nil || r.Hash == "" {
					return nil, fmt.Errorf("transaction %d: receipt without transaction_hash", i)
				}
				b.txs = append(b.txs, txWithReceipt{hash: r.Hash, tx: t.Transaction, receipt: t.Receipt})
			}
			continue
		}
		header = append(header, m)
	}
	if b.hash == "" {
		return nil, errors.New("block without block_hash")
	}
	// getBlockWithTxs: the header, then each transaction with its hash put first
	// (README: "put receipt.transaction_hash into each transaction").
	var withTxs, withHashes bytes.Buffer
	writeHeader := func(buf *bytes.Buffer) {
		buf.WriteByte('{')
		for _, m := range header {
			buf.WriteString(strconv.Quote(m.key))
			buf.WriteByte(':')
			buf.Write(m.value)
			buf.WriteByte(',')
		}
		buf.WriteString(`"transactions":[`)
	}
	writeHeader(&withTxs)
	writeHeader(&withHashes)
	for i, t := range b.txs {
		if i > 0 {
			withTxs.WriteByte(',')
			withHashes.WriteByte(',')
		}
		body := bytes.TrimSpace(t.tx)
		if len(body) < 2 || body[0] != '{' {
			return nil, fmt.Errorf("transaction %d is not an object", i)
		}
		withTxs.WriteString(`{"transaction_hash":`)
		withTxs.WriteString(strconv.Quote(t.hash))
		if rest := bytes.TrimSpace(body[1:]); len(rest) > 0 && rest[0] != '}' {
			withTxs.WriteByte(',')
		}
		withTxs.Write(body[1:])
		withHashes.WriteString(strconv.Quote(t.hash))
	}
	withTxs.WriteString("]}")
	withHashes.WriteString("]}")
	b.withTxs, b.withHashes = withTxs.Bytes(), withHashes.Bytes()
	return b, nil
}

// emittedEvents turns the events of one receipt into EMITTED_EVENTs: the event
// plus block_hash, block_number and transaction_hash.
func emittedEvents(b *block, t txWithReceipt) ([]emittedEvent, error) {
	var r struct {
		Events []struct {
			FromAddress json.RawMessage `json:"from_address"`
			Keys        json.RawMessage `json:"keys"`
			Data        json.RawMessage `json:"data"`
		} `json:"events"`
	}
	if err := json.Unmarshal(t.receipt, &r); err != nil {
		return nil, err
	}
	out := make([]emittedEvent, len(r.Events))
	for i, e := range r.Events {
		var fromText string
		var keyTexts []string
		if err := json.Unmarshal(e.FromAddress, &fromText); err != nil {
			return nil, fmt.Errorf("event %d from_address: %w", i, err)
		}
		if err := json.Unmarshal(e.Keys, &keyTexts); err != nil {
			return nil, fmt.Errorf("event %d keys: %w", i, err)
		}
		from, err := rpcserver.CanonicalFelt(fromText)
		if err != nil {
			return nil, fmt.Errorf("event %d from_address: %w", i, err)
		}
		keys := make([]string, len(keyTexts))
		for j, k := range keyTexts {
			if keys[j], err = rpcserver.CanonicalFelt(k); err != nil {
				return nil, fmt.Errorf("event %d key %d: %w", i, j, err)
			}
		}
		if e.Data == nil {
			e.Data = json.RawMessage("[]")
		}
		var buf bytes.Buffer
		fmt.Fprintf(&buf, `{"from_address":%s,"keys":%s,"data":%s,"block_hash":%q,"block_number":%d,"transaction_hash":%q}`,
			e.FromAddress, e.Keys, e.Data, b.hash, b.number, t.hash)
		out[i] = emittedEvent{blockNumber: b.number, fromAddress: from, keys: keys, json: buf.Bytes()}
	}
	return out, nil
}

func (s *Set) loadStateUpdates(dir string) error {
	files, err := numberedFiles(dir)
	if err != nil {
		return err
	}
	for n, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		if !json.Valid(raw) {
			return fmt.Errorf("replay: %s is not valid JSON", path)
		}
		s.stateUpdates[n] = raw
	}
	return nil
}

func (s *Set) loadClasses(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue
		}
		hash, err := rpcserver.CanonicalFelt(name)
		if err != nil {
			return fmt.Errorf("replay: classes/%s: %w", e.Name(), err)
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		if !json.Valid(raw) {
			return fmt.Errorf("replay: classes/%s is not valid JSON", e.Name())
		}
		s.classes[hash] = raw
	}
	return nil
}

func (s *Set) loadContracts(path string) error {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	var m map[string]string
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("replay: contracts.json: %w", err)
	}
	for addr, class := range m {
		a, err1 := rpcserver.CanonicalFelt(addr)
		c, err2 := rpcserver.CanonicalFelt(class)
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("replay: contracts.json: %w", err)
		}
		s.contracts[a] = c
	}
	return nil
}

// ServeHTTP answers JSON-RPC requests on any path.
func (s *Set) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.rpc.ServeHTTP(w, r) }

// Serve loads dir and serves it on addr until ctx is cancelled.
func Serve(ctx context.Context, dir, addr string, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	set, err := Load(dir)
	if err != nil {
		return err
	}
	set.rpc = set.newServer(logger)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	logger.Info("replaying fixture set", "set", set.Name, "chain_id", set.ChainID,
		"blocks", fmt.Sprintf("%d-%d", set.FirstBlock, set.LastBlock), "url", "http://"+ln.Addr().String()+"/")
	return rpcserver.ServeUntilDone(ctx, &http.Server{Handler: set, ReadHeaderTimeout: 10 * time.Second}, ln)
}
