// Package nftmeta is the NFT metadata fetcher: it works through the refresh requests the
// API queues (db.RequestNFTMetadata), asks the node for each item's token URI (token_uri
// or tokenURI of ERC-721, uri of ERC-1155), reads the metadata document the URI names
// (data:, ipfs:// through a gateway, http(s)://) and stores its fields on the item.
//
// Token URIs come from contracts anyone can deploy, so the documents are untrusted: the
// fetch has a timeout and a size cap, and by default refuses addresses that are not
// public (loopback, private, link-local), so that a contract cannot make the service
// read its own network.
package nftmeta

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// Defaults of Config.
const (
	DefaultGateway  = "https://ipfs.io/ipfs/"
	DefaultTimeout  = 10 * time.Second
	DefaultMaxBytes = 1 << 20
	DefaultPoll     = 2 * time.Second
)

// Config configures the fetcher.
type Config struct {
	DB      *sqlx.DB
	RPCURL  string // the node, for token_uri
	Gateway string // IPFS gateway: ipfs://CID/path is read from Gateway + "CID/path"
	Timeout time.Duration
	// MaxBytes caps a metadata document.
	MaxBytes int64
	// AllowPrivate lets token URIs name loopback and private addresses (tests, and
	// operators whose metadata is served inside their own network).
	AllowPrivate bool
	Poll         time.Duration // how often an idle fetcher looks for requests
	Logger       *slog.Logger
}

// Fetcher reads metadata documents.
type Fetcher struct {
	cfg  Config
	node *rpc.Client
	http *http.Client
}

// New returns a fetcher with cfg's zero fields set to their defaults.
func New(cfg Config) *Fetcher {
	if cfg.Gateway == "" {
		cfg.Gateway = DefaultGateway
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	dialer := &net.Dialer{Timeout: cfg.Timeout}
	if !cfg.AllowPrivate {
		dialer.Control = publicOnly
	}
	transport := &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: cfg.Timeout, ResponseHeaderTimeout: cfg.Timeout}
	return &Fetcher{cfg: cfg, node: rpc.NewClient(cfg.RPCURL), http: &http.Client{Transport: transport, Timeout: cfg.Timeout,
		CheckRedirect: func(_ *http.Request, via []*http.Request) error {
			if len(via) >= 3 {
				return errors.New("more than 3 redirects")
			}
			return nil
		}}}
}

// errNotPublic refuses a connection to an address that is not public.
var errNotPublic = errors.New("the address is not public")

// publicOnly is a dialer's Control: it runs on the resolved address, so a name that
// resolves to a private address is refused too.
func publicOnly(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	if ip == nil || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsMulticast() {
		return fmt.Errorf("%s: %w", host, errNotPublic)
	}
	return nil
}

// Run works through the queue until ctx ends.
func (f *Fetcher) Run(ctx context.Context) {
	for ctx.Err() == nil {
		did, err := f.Next(ctx)
		if err != nil && ctx.Err() == nil {
			f.cfg.Logger.Warn("nft metadata", "err", err)
		}
		if !did || err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(f.cfg.Poll):
			}
		}
	}
}

// Next claims the next request and settles it; it reports whether there was one. The
// claim lasts lease() and the fetch, which holds no transaction open, ends well before it.
// A document that cannot be read fails the request (the item keeps its metadata); a
// failure of the database leaves the claim to run out, and the request is taken again.
func (f *Fetcher) Next(ctx context.Context) (bool, error) {
	req, err := db.ClaimNFTMetadataRequest(ctx, f.cfg.DB, f.lease())
	if err != nil || req == nil {
		return false, err
	}
	fetchCtx, cancel := context.WithTimeout(ctx, f.lease()*2/3)
	meta, failure := f.Fetch(fetchCtx, req.Contract.Starknet(), req.TokenID, req.ContractType)
	cancel()
	if ctx.Err() != nil {
		return true, ctx.Err()
	}
	if failure != nil {
		f.cfg.Logger.Info("nft metadata not read", "contract", req.Contract.Hex(), "token_id", req.TokenID, "err", failure)
	}
	tx, err := f.cfg.DB.BeginTxx(ctx, nil)
	if err != nil {
		return true, err
	}
	defer tx.Rollback()
	held, err := db.FinishNFTMetadataRequest(ctx, tx, req, meta, failure)
	if err != nil {
		return true, err
	}
	if !held {
		f.cfg.Logger.Info("nft metadata: the claim ran out or the request was made again; its outcome is left to the next fetch",
			"contract", req.Contract.Hex(), "token_id", req.TokenID)
		return true, nil
	}
	return true, tx.Commit()
}

// lease is how long a claim lasts: three times the timeout of one read, for the node's
// call and the document's (with its redirects), which the fetch is held to two thirds of.
func (f *Fetcher) lease() time.Duration { return 3 * f.cfg.Timeout }

// Fetch reads an item's metadata: its token URI from the node, then the document.
func (f *Fetcher) Fetch(ctx context.Context, contract starknet.Felt, tokenID string, standard int) (*db.NFTMetadata, error) {
	id, ok := new(big.Int).SetString(tokenID, 10)
	if !ok {
		return nil, fmt.Errorf("token id %q is not a number", tokenID)
	}
	uri, err := f.tokenURI(ctx, contract, id, standard)
	if err != nil {
		return nil, err
	}
	doc, err := f.read(ctx, uri)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", clip(uri), err)
	}
	meta, err := parse(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", clip(uri), err)
	}
	meta.TokenURI = uri
	return meta, nil
}

// tokenURI asks the contract for the item's URI, under the names contracts use for it.
// ERC-1155 URIs may hold {id}, the id in 64 hex digits.
func (f *Fetcher) tokenURI(ctx context.Context, contract starknet.Felt, id *big.Int, standard int) (string, error) {
	low, high, err := starknet.SplitU256(id)
	if err != nil {
		return "", fmt.Errorf("token id: %w", err)
	}
	lowHigh := []starknet.Felt{low, high}
	names := []string{"token_uri", "tokenURI", "uri"}
	if standard == 1155 {
		names = []string{"uri", "token_uri", "tokenURI"}
	}
	var lastErr error
	for _, name := range names {
		out, err := f.node.CallByName(ctx, contract, name, lowHigh, rpc.Latest())
		if err != nil {
			lastErr = err
			continue
		}
		s, ok := decodeURI(out)
		if !ok {
			return "", fmt.Errorf("%s answered %d felts that are not a string", name, len(out))
		}
		return strings.ReplaceAll(s, "{id}", fmt.Sprintf("%064x", id)), nil
	}
	return "", fmt.Errorf("no token URI: %w", lastErr)
}

// decodeURI reads a string result: a ByteArray, one short string, or (older contracts) a
// length-prefixed array of short strings.
func decodeURI(out []starknet.Felt) (string, bool) {
	if s, ok := starknet.DecodeString(out); ok && s != "" {
		return s, true
	}
	if len(out) >= 2 {
		if n, ok := out[0].Uint64(); ok && int(n) == len(out)-1 {
			var b strings.Builder
			for _, w := range out[1:] {
				s, ok := starknet.ShortString(w)
				if !ok {
					return "", false
				}
				b.WriteString(s)
			}
			return b.String(), b.Len() > 0
		}
	}
	return "", false
}

// read returns the document a URI names.
func (f *Fetcher) read(ctx context.Context, uri string) ([]byte, error) {
	switch {
	case strings.HasPrefix(uri, "data:"):
		return readDataURI(uri, f.cfg.MaxBytes)
	case strings.HasPrefix(uri, "ipfs://"):
		uri = strings.TrimSuffix(f.cfg.Gateway, "/") + "/" + strings.TrimPrefix(strings.TrimPrefix(uri, "ipfs://"), "ipfs/")
	case strings.HasPrefix(uri, "https://"), strings.HasPrefix(uri, "http://"):
	default:
		return nil, errors.New("not a data:, ipfs:// or http(s):// URI")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return readCapped(resp.Body, f.cfg.MaxBytes)
}

func readCapped(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("document larger than %d bytes", limit)
	}
	return b, nil
}

// readDataURI decodes data:[<type>][;base64],<data>.
func readDataURI(uri string, limit int64) ([]byte, error) {
	head, data, ok := strings.Cut(strings.TrimPrefix(uri, "data:"), ",")
	if !ok {
		return nil, errors.New("data: URI without a comma")
	}
	var doc []byte
	var err error
	if strings.HasSuffix(head, ";base64") {
		doc, err = base64.StdEncoding.DecodeString(data)
	} else {
		var s string
		s, err = url.PathUnescape(data)
		doc = []byte(s)
	}
	if err != nil {
		return nil, fmt.Errorf("data: URI: %w", err)
	}
	if int64(len(doc)) > limit {
		return nil, fmt.Errorf("document larger than %d bytes", limit)
	}
	return doc, nil
}

// parse reads the fields of an ERC-721 / ERC-1155 metadata document (OpenSea's names).
func parse(doc []byte) (*db.NFTMetadata, error) {
	var m struct {
		Name         any             `json:"name"`
		Description  any             `json:"description"`
		Image        any             `json:"image"`
		ImageURL     any             `json:"image_url"`
		ExternalURL  any             `json:"external_url"`
		AnimationURL any             `json:"animation_url"`
		YoutubeURL   any             `json:"youtube_url"`
		Attributes   json.RawMessage `json:"attributes"`
	}
	if err := json.Unmarshal(doc, &m); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	str := func(v any) *string {
		switch x := v.(type) {
		case string:
			return &x
		case float64:
			s := fmt.Sprint(x)
			return &s
		}
		return nil
	}
	out := &db.NFTMetadata{Name: str(m.Name), Description: str(m.Description), ImageURL: str(m.Image),
		ExternalURL: str(m.ExternalURL), AnimationURL: str(m.AnimationURL), YoutubeURL: str(m.YoutubeURL), Attributes: db.JSON("[]")}
	if out.ImageURL == nil {
		out.ImageURL = str(m.ImageURL)
	}
	if a := strings.TrimSpace(string(m.Attributes)); strings.HasPrefix(a, "[") {
		out.Attributes = db.JSON(a)
	}
	return out, nil
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}
