// Package labels is the operator's list of names: address or class hash -> name, with an
// optional logo, a verified flag, a kind and where the name came from. Lists are YAML
// files (docs/names.md); the default lists for mainnet and Sepolia are embedded and
// applied by chain id, and an operator's file and `starkgraph labels import` add to them.
// Everything ends up in the aliases table, which both APIs read (db.Store.AliasesOf).
package labels

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/starkgraph/starkgraph/starknet"
)

// Kinds of labelled things.
const (
	KindToken     = "token"
	KindContract  = "contract"
	KindClass     = "class"
	KindValidator = "validator"
	KindAccount   = "account"
)

var kinds = []string{KindToken, KindContract, KindClass, KindValidator, KindAccount}

// MaxNameLength is the longest name a list may give (in characters).
const MaxNameLength = 100

// Entry is one label.
type Entry struct {
	Address  string `yaml:"address" json:"address"` // a contract address or class hash, 0x-hex
	Name     string `yaml:"name" json:"name"`
	Kind     string `yaml:"kind" json:"kind"`
	Logo     string `yaml:"logo,omitempty" json:"logo,omitempty"` // http(s) URL or a path on this server
	Verified bool   `yaml:"verified,omitempty" json:"verified,omitempty"`
	Source   string `yaml:"source,omitempty" json:"source,omitempty"` // where the name and address were taken from
}

// List is a label file: the chain it is meant for (informative) and its entries.
type List struct {
	Chain  string  `yaml:"chain,omitempty"`
	Labels []Entry `yaml:"labels"`
}

// Felt is the entry's address as a felt (Parse has checked it).
func (e Entry) Felt() starknet.Felt { return starknet.MustFelt(e.Address) }

// Parse reads a label file and checks every entry; the error names the entry at fault.
// An address listed twice is an error.
func Parse(data []byte) (*List, error) {
	var l List
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	seen := map[starknet.Felt]int{}
	for i := range l.Labels {
		e := &l.Labels[i]
		if err := e.check(); err != nil {
			return nil, fmt.Errorf("labels: entry %d (%q): %w", i+1, e.Address, err)
		}
		f := e.Felt()
		if j, dup := seen[f]; dup {
			return nil, fmt.Errorf("labels: entry %d: address %s is listed again (entry %d)", i+1, e.Address, j)
		}
		seen[f] = i + 1
		e.Address = f.Padded()
	}
	return &l, nil
}

// check validates and normalizes one entry.
func (e *Entry) check() error {
	f, err := starknet.ParseFelt(strings.TrimSpace(e.Address))
	if err != nil {
		return fmt.Errorf("address: %w", err)
	}
	if f.IsZero() {
		return errors.New("address: 0x0 names nothing")
	}
	e.Address = f.Padded()
	e.Name = strings.TrimSpace(e.Name)
	switch {
	case e.Name == "":
		return errors.New("name: empty")
	case utf8.RuneCountInString(e.Name) > MaxNameLength:
		return fmt.Errorf("name: longer than %d characters", MaxNameLength)
	case strings.ContainsAny(e.Name, "\n\r\t\x00"):
		return errors.New("name: control characters")
	}
	if e.Kind == "" {
		e.Kind = KindContract
	}
	ok := false
	for _, k := range kinds {
		ok = ok || e.Kind == k
	}
	if !ok {
		return fmt.Errorf("kind: %q is not one of %s", e.Kind, strings.Join(kinds, ", "))
	}
	if e.Verified && e.Kind != KindToken && e.Kind != KindValidator && e.Kind != KindClass {
		return fmt.Errorf("verified: only tokens, validators and classes are verified, not a %s", e.Kind)
	}
	if e.Logo != "" {
		u, err := url.Parse(e.Logo)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http" && !(u.Scheme == "" && strings.HasPrefix(e.Logo, "/"))) {
			return fmt.Errorf("logo: %q is not an http(s) URL or a path on this server", e.Logo)
		}
	}
	return nil
}

//go:embed defaults/*.yaml
var defaults embed.FS

// Chain ids (the felts of their ASCII names).
const (
	ChainMainnet = "0x534e5f4d41494e"       // SN_MAIN
	ChainSepolia = "0x534e5f5345504f4c4941" // SN_SEPOLIA
)

// Default returns the embedded list for a chain id (0x-hex, as the node answers
// starknet_chainId), or nil for a chain without one.
func Default(chainID string) *List {
	var file string
	if f, err := starknet.ParseFelt(chainID); err == nil {
		switch f.Hex() {
		case ChainMainnet:
			file = "defaults/mainnet.yaml"
		case ChainSepolia:
			file = "defaults/sepolia.yaml"
		}
	}
	if file == "" {
		return nil
	}
	data, err := defaults.ReadFile(file)
	if err != nil {
		panic(err)
	}
	l, err := Parse(data)
	if err != nil {
		panic(fmt.Sprintf("%s: %v", file, err)) // TestDefaultListsParse keeps this from happening
	}
	return l
}
