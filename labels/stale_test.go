package labels

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/starknet"
)

// One load is one transaction, applied once: the file's labels and the chain's defaults
// commit together, and a token whose flags end where they began is not rewritten on the
// way (with a transaction per origin it was unverified by the first and verified again by
// the second, and readers could see it in between).
func TestLoadIsOneTransaction(t *testing.T) {
	d := dbtest.New(t)
	ctx := context.Background()
	strk := db.FeltOf(starknet.MustFelt("0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d"))
	other := db.FeltOf(starknet.MustFelt("0x0abc"))
	dbtest.Exec(t, d, `INSERT INTO tokens (address, standard, name, symbol) VALUES ($1, 'erc20', 'Starknet Token', 'STRK')`, strk)
	dbtest.Exec(t, d, `UPDATE indexer_state SET chain_id = $1`, ChainMainnet)
	file := filepath.Join(t.TempDir(), "labels.yaml")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l := &Loader{Conn: d, File: file}
	// The file names STRK as the default does (verified, no logo), under another name.
	write(`labels: [{address: "0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d", name: Our STRK, kind: token, verified: true},
  {address: "0x0abc", name: Before}]`)
	if _, err := l.Load(ctx); err != nil {
		t.Fatal(err)
	}
	xmin := func(q string, args ...any) string {
		t.Helper()
		var x string
		if err := d.Get(&x, q, args...); err != nil {
			t.Fatal(err)
		}
		return x
	}
	tokenBefore := xmin(`SELECT xmin::text FROM tokens WHERE address = $1`, strk)

	// The file drops STRK (its default comes back) and renames 0xabc: both in one commit.
	write(`labels: [{address: "0x0abc", name: After}]`)
	if _, err := l.Load(ctx); err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Name   string `db:"name"`
		Origin string `db:"origin"`
		Xmin   string `db:"xmin"`
	}
	if err := d.Select(&rows, `SELECT name, origin, xmin::text AS xmin FROM aliases WHERE address = ANY($1) ORDER BY name`,
		pq.ByteaArray{[]byte(db.Normalize(strk)), []byte(db.Normalize(other))}); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Name != "After" || rows[1].Name != "Starknet Token" || rows[1].Origin != db.LabelOriginDefault {
		t.Fatalf("labels after the reload: %+v", rows)
	}
	if rows[0].Xmin != rows[1].Xmin {
		t.Errorf("the file's label was written by transaction %s and the default's by %s: a load is one transaction", rows[0].Xmin, rows[1].Xmin)
	}
	if after := xmin(`SELECT xmin::text FROM tokens WHERE address = $1`, strk); after != tokenBefore {
		t.Errorf("STRK's token row was rewritten (transaction %s, was %s) though its flags end as they began", after, tokenBefore)
	}
	var verified bool
	if err := d.Get(&verified, `SELECT verified FROM tokens WHERE address = $1`, strk); err != nil || !verified {
		t.Fatalf("STRK verified: %v %v", verified, err)
	}
}

// What the file no longer says is gone after the reload: a token's logo dropped from its
// entry, a validator's whole label (its name, image and verified flag) and the name it
// gave the address. A token row a reorg puts back takes its label's values, not the
// logo its journaled image had.
func TestRemovedLogoAndLabelDisappear(t *testing.T) {
	d := dbtest.New(t)
	ctx := context.Background()
	store := db.NewStore(d)
	token := db.FeltOf(starknet.MustFelt("0x0777"))
	later := db.FeltOf(starknet.MustFelt("0x0778"))
	validator := db.FeltOf(starknet.MustFelt("0x0888"))
	dbtest.Exec(t, d, `UPDATE indexer_state SET chain_id = '0x1234'`) // a chain without a default list
	dbtest.Exec(t, d, `INSERT INTO tokens (address, standard, name, symbol) VALUES ($1, 'erc20', 'Token', 'TOK')`, token)
	dbtest.Exec(t, d, `INSERT INTO validators (staker_address) VALUES ($1)`, validator)
	file := filepath.Join(t.TempDir(), "labels.yaml")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l := &Loader{Conn: d, File: file}
	write(`labels:
  - {address: "0x0777", name: Our Token, kind: token, verified: true, logo: "https://example.com/tok.svg"}
  - {address: "0x0778", name: Later Token, kind: token, verified: true, logo: "/logos/later.svg"}
  - {address: "0x0888", name: Val One, kind: validator, verified: true, logo: "https://example.com/val.png"}`)
	if _, err := l.Load(ctx); err != nil {
		t.Fatal(err)
	}
	type tokenFlags struct {
		Verified bool    `db:"verified"`
		Logo     *string `db:"logo_url"`
	}
	tokenOf := func(addr db.Felt) tokenFlags {
		t.Helper()
		var f tokenFlags
		if err := d.Get(&f, `SELECT verified, logo_url FROM tokens WHERE address = $1`, addr); err != nil {
			t.Fatal(err)
		}
		return f
	}
	type validatorFlags struct {
		Name     *string `db:"name"`
		Image    *string `db:"image_url"`
		Verified bool    `db:"is_verified"`
	}
	validatorOf := func() validatorFlags {
		t.Helper()
		var f validatorFlags
		if err := d.Get(&f, `SELECT name, image_url, is_verified FROM validators WHERE staker_address = $1`, validator); err != nil {
			t.Fatal(err)
		}
		return f
	}
	if f := tokenOf(token); !f.Verified || f.Logo == nil || *f.Logo != "https://example.com/tok.svg" {
		t.Fatalf("token after the first load: %+v", f)
	}
	if f := validatorOf(); f.Name == nil || *f.Name != "Val One" || f.Image == nil || !f.Verified {
		t.Fatalf("validator after the first load: %+v", f)
	}
	// A token made by the indexer now takes its label at insert; the journal of a block
	// that changes it records that image (logo and all).
	dbtest.Exec(t, d, `INSERT INTO tokens (address, standard) VALUES ($1, 'erc20')`, later)
	if f := tokenOf(later); !f.Verified || f.Logo == nil || *f.Logo != "/logos/later.svg" {
		t.Fatalf("new token: %+v", f)
	}
	tx, err := d.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Journal(ctx, tx, 5, "tokens", pq.ByteaArray{[]byte(db.Normalize(later))}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	// The file keeps the tokens' labels without their logos and drops the validator's.
	write(`labels:
  - {address: "0x0777", name: Our Token, kind: token, verified: true}
  - {address: "0x0778", name: Later Token, kind: token, verified: true}`)
	if _, err := l.Load(ctx); err != nil {
		t.Fatalf("reload without the validator's label: %v", err)
	}
	if f := tokenOf(token); !f.Verified || f.Logo != nil {
		t.Errorf("token whose logo the file dropped: verified %v, logo %v; want verified, no logo", f.Verified, deref(f.Logo))
	}
	if f := tokenOf(later); f.Logo != nil {
		t.Errorf("the new token's logo: %v, want none", deref(f.Logo))
	}
	if f := validatorOf(); f.Name != nil || f.Image != nil || f.Verified {
		t.Errorf("validator whose label the file dropped: name %v, image %v, verified %v; want none", deref(f.Name), deref(f.Image), f.Verified)
	}
	names, err := store.AliasesOf(ctx, []db.Felt{validator})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if n != nil && n.Name == "Val One" {
			t.Errorf("the removed label still names the validator: %+v", n)
		}
	}

	// A reorg above block 4 puts the journaled image of the new token back: it takes its
	// label as it is now, not the logo it had then.
	tx, err = d.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	if err := db.UndoAbove(ctx, tx, 4); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if f := tokenOf(later); !f.Verified || f.Logo != nil {
		t.Errorf("the token put back by a reorg: verified %v, logo %v; want its label's (verified, no logo)", f.Verified, deref(f.Logo))
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
