package sim

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/starkgraph/starkgraph/rpcserver"
)

// FaultKind is a failure the simulator can inject into the answers about one block.
type FaultKind int

const (
	// MalformedJSON cuts the JSON-RPC response in half.
	MalformedJSON FaultKind = iota + 1
	// MissingField drops the block's "parent_hash" member.
	MissingField
	// WrongParentHash serves the block with a parent_hash that links to nothing.
	WrongParentHash
	// HTTP500 fails the HTTP exchange with status 500.
	HTTP500
	// Slow answers after Config.SlowDelay.
	Slow
)

// Fault applies Kind to the next Times requests (at least one) that fetch Block
// with getBlockWithReceipts, getBlockWithTxs, getBlockWithTxHashes or getStateUpdate
// (MissingField and WrongParentHash only change the block views).
type Fault struct {
	Kind  FaultKind
	Block uint64
	Times int
}

type forkPoint struct{ from, id uint64 }

// Chain is a simulated chain. Its methods are safe for concurrent use.
type Chain struct {
	w      *world
	logger *slog.Logger

	mu       sync.RWMutex
	head     uint64
	forks    []forkPoint // in the order the reorgs happened; later ones win
	nextFork uint64
	faults   []Fault

	cacheMu sync.Mutex
	cache   [256]*block // recently generated blocks, by number % 256

	ledger  *ledger
	slots   *slotCache
	classes map[felt][]byte // catalogue classes, encoded once
	rpc     *rpcserver.Server
}

// New creates the chain with cfg.Blocks blocks (numbers 0..Blocks-1).
func New(cfg Config) *Chain {
	cfg = cfg.withDefaults()
	c := &Chain{w: &world{cfg: cfg, seed: mix64(cfg.Seed ^ 0x5eed)}, head: cfg.Blocks - 1, ledger: newLedger(), slots: newSlotCache(),
		classes: map[felt][]byte{}, logger: slog.New(slog.DiscardHandler)}
	for i := 0; i < numClasses; i++ {
		c.classes[classHash(i)] = encodeClass(i, 0)
	}
	c.rpc = c.newServer()
	return c
}

// Handler serves the JSON-RPC API on any path.
func (c *Chain) Handler() http.Handler { return c.rpc }

// Head returns the number and hash of the newest block.
func (c *Chain) Head() (uint64, string) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.head, c.w.blockHash(c.head, c.forkOf(c.head)).String()
}

// AddBlocks appends n blocks to the chain.
func (c *Chain) AddBlocks(n uint64) {
	c.mu.Lock()
	c.head += n
	c.mu.Unlock()
}

// Reorg replaces the newest depth blocks (never the genesis block) with a new
// fork at the same height: their hashes and contents change, the blocks below
// do not.
func (c *Chain) Reorg(depth uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	depth = min(depth, c.head)
	if depth == 0 {
		return
	}
	c.nextFork++
	from := c.head - depth + 1
	c.forks = append(c.forks, forkPoint{from, c.nextFork})
	c.ledger.mu.Lock()
	c.ledger.rollback(from - 1)
	c.ledger.mu.Unlock()
}

// InjectFault arranges for the next requests about f.Block to fail as f.Kind says.
func (c *Chain) InjectFault(f Fault) {
	if f.Times < 1 {
		f.Times = 1
	}
	c.mu.Lock()
	c.faults = append(c.faults, f)
	c.mu.Unlock()
}

// takeFault consumes one use of a fault on block n, if any.
func (c *Chain) takeFault(n uint64) FaultKind {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.faults {
		f := &c.faults[i]
		if f.Block == n && f.Times > 0 {
			f.Times--
			kind := f.Kind
			if f.Times == 0 {
				c.faults = append(c.faults[:i], c.faults[i+1:]...)
			}
			return kind
		}
	}
	return 0
}

// forkOf is the fork id of block n; callers hold c.mu.
func (c *Chain) forkOf(n uint64) uint64 {
	for i := len(c.forks) - 1; i >= 0; i-- {
		if c.forks[i].from <= n {
			return c.forks[i].id
		}
	}
	return 0
}

// block returns block n as currently on the chain; callers hold c.mu (read).
func (c *Chain) block(n uint64) *block {
	fork := c.forkOf(n)
	slot := n % uint64(len(c.cache))
	c.cacheMu.Lock()
	b := c.cache[slot]
	c.cacheMu.Unlock()
	if b != nil && b.number == n && b.fork == fork {
		return b
	}
	parentFork := uint64(0)
	if n > 0 {
		parentFork = c.forkOf(n - 1)
	}
	b = c.w.generate(n, fork, parentFork)
	c.cacheMu.Lock()
	c.cache[slot] = b
	c.cacheMu.Unlock()
	return b
}

func (c *Chain) status(n uint64) string {
	if n+c.w.cfg.L1Lag <= c.head {
		return "ACCEPTED_ON_L1"
	}
	return "ACCEPTED_ON_L2"
}

// Run grows the chain until ctx is cancelled: a block every cfg.BlockTime, and a
// reorg of cfg.ReorgDepth every cfg.ReorgEvery appended blocks. Without a
// BlockTime it just waits. Serve calls it; embed the chain with Handler and Run.
func (c *Chain) Run(ctx context.Context) {
	cfg := c.w.cfg
	if cfg.BlockTime <= 0 {
		<-ctx.Done()
		return
	}
	t := time.NewTicker(cfg.BlockTime)
	defer t.Stop()
	for appended := uint64(1); ; appended++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		c.AddBlocks(1)
		if cfg.ReorgEvery > 0 && appended%cfg.ReorgEvery == 0 {
			c.Reorg(cfg.ReorgDepth)
			head, hash := c.Head()
			c.logger.Info("sim: reorg", "depth", cfg.ReorgDepth, "head", head, "hash", hash)
		}
	}
}

// Serve runs the simulated node on addr until ctx is cancelled (see Run), with its
// Ethereum node on L1Path.
func Serve(ctx context.Context, cfg Config, addr string, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := New(cfg)
	c.logger = logger
	c.rpc.Logger = logger
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	head, _ := c.Head()
	logger.Info("simulated Starknet node", "url", "http://"+ln.Addr().String()+"/rpc/v0_8", "seed", cfg.Seed, "head", head,
		"block_time", cfg.BlockTime, "reorg_every", cfg.ReorgEvery, "l1_url", "http://"+ln.Addr().String()+L1Path)
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	go c.Run(runCtx)
	return rpcserver.ServeUntilDone(ctx, &http.Server{Handler: c.Handlers(), ReadHeaderTimeout: 10 * time.Second}, ln)
}

// dropMember removes `"name":<string value>,` from an encoded object (fault injection).
func dropMember(b []byte, name string) []byte {
	key := []byte(`"` + name + `":"`)
	i := bytes.Index(b, key)
	if i < 0 {
		return b
	}
	j := bytes.IndexByte(b[i+len(key):], '"')
	end := i + len(key) + j + 1
	if end < len(b) && b[end] == ',' {
		end++
	}
	return append(b[:i:i], b[end:]...)
}
