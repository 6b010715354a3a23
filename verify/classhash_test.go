package verify

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/internal/fixtures"

	"github.com/starkgraph/starkgraph/db"
)

const fixtureClass = "0x29927c8af6bccf3f6fda035981e765a7bdbf18a2dc0d630494f8758aa908e2b"

// readFixtureClass returns the fixture class as scarb writes a class: indented, with the
// ABI as a JSON array (in its own key order, as scarb writes it), not the string a node
// returns.
func readFixtureClass(t testing.TB) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(fixtures.Dir(t), "sepolia-56377", "classes", fixtureClass+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var node struct {
		SierraProgram        json.RawMessage `json:"sierra_program"`
		ContractClassVersion string          `json:"contract_class_version"`
		EntryPointsByType    json.RawMessage `json:"entry_points_by_type"`
		ABI                  string          `json:"abi"`
	}
	if err := json.Unmarshal(raw, &node); err != nil {
		t.Fatal(err)
	}
	var abi []json.RawMessage
	if err := json.Unmarshal([]byte(node.ABI), &abi); err != nil {
		t.Fatalf("fixture ABI is not a JSON array: %v", err)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(map[string]any{
		"sierra_program": node.SierraProgram, "contract_class_version": node.ContractClassVersion,
		"entry_points_by_type": node.EntryPointsByType, "abi": abi,
	}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// The known-answer vector: the fixture class, with its ABI given back as an array, hashes
// to its own file name.
func TestSierraClassHashKnownAnswer(t *testing.T) {
	got, abi, err := SierraClassHash(readFixtureClass(t))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(db.MustFelt(fixtureClass)) {
		t.Fatalf("class hash %s, want %s", got.Hex(), fixtureClass)
	}
	if !strings.HasPrefix(string(abi), "[") || !strings.Contains(string(abi), `"type"`) {
		t.Errorf("ABI not returned as an array: %.80s", abi)
	}
	// The node's form (ABI as a string) hashes the same.
	raw, _ := os.ReadFile(filepath.Join(fixtures.Dir(t), "sepolia-56377", "classes", fixtureClass+".json"))
	if got, _, err := SierraClassHash(raw); err != nil || !got.Equal(db.MustFelt(fixtureClass)) {
		t.Errorf("node form: %v %v", got, err)
	}
}

func TestSierraClassHashChangesWithOneFelt(t *testing.T) {
	raw := readFixtureClass(t)
	i := bytes.Index(raw, []byte(`"sierra_program": [`))
	j := bytes.IndexByte(raw[i:], ',')
	if i < 0 || j < 0 {
		t.Fatal("no sierra_program in the fixture")
	}
	changed := append(append(append([]byte{}, raw[:i]...), `"sierra_program": ["0x1234"`...), raw[i+j:]...)
	got, _, err := SierraClassHash(changed)
	if err != nil {
		t.Fatal(err)
	}
	if got.Equal(db.MustFelt(fixtureClass)) {
		t.Fatal("a changed Sierra program hashed to the same class hash")
	}
}

func TestSierraClassHashRefusesLegacyAndGarbage(t *testing.T) {
	for name, body := range map[string]string{
		"legacy":  `{"program": "H4sI", "entry_points_by_type": {}, "abi": []}`,
		"garbage": `not json`,
		"array":   `[1, 2]`,
	} {
		if _, _, err := SierraClassHash([]byte(body)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
