package db

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Label is a row of aliases: an operator's name for an address or class (docs/names.md).
type Label struct {
	Address  Felt    `db:"address"`
	Name     string  `db:"name"`
	Kind     string  `db:"kind"`
	LogoURL  *string `db:"logo_url"`
	Verified bool    `db:"verified"`
	Source   string  `db:"source"`
	// Origin is where the row came from: LabelOrigin*.
	Origin string `db:"origin"`
}

// Where a label row came from. A reload replaces the rows of its origin; `labels import`
// rows are kept until `labels rm`, and win over the files'.
const (
	LabelOriginDefault = "default" // the embedded list of the indexed chain
	LabelOriginFile    = "file"    // the operator's label file (--labels), reloaded on SIGHUP
	LabelOriginCLI     = "cli"     // starkgraph labels import
)

// originRank orders origins: a row of a higher rank is not replaced by a lower one.
const originRank = `CASE %s WHEN 'cli' THEN 3 WHEN 'file' THEN 2 ELSE 1 END`

// LabelSet is every label of one origin.
type LabelSet struct {
	Origin string
	Rows   []Label
}

// ReplaceLabels makes each set the labels of its origin, all in one transaction and in
// the order given: the origin's rows not in the set are deleted, rows of a lower origin
// are overwritten, rows of a higher origin are kept. Then the tokens' and validators'
// labelled columns follow the outcome, once (ApplyLabels). Readers see the labels before
// the call or after it, never a state between two origins.
func ReplaceLabels(ctx context.Context, conn *sqlx.DB, sets ...LabelSet) error {
	tx, err := conn.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	for _, set := range sets {
		addrs := make([]Felt, len(set.Rows))
		for i, r := range set.Rows {
			addrs[i] = r.Address
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM aliases WHERE origin = $1 AND address <> ALL($2)`, set.Origin, feltList(addrs)); err != nil {
			return fmt.Errorf("labels: %w", err)
		}
		if err := upsertLabels(ctx, tx, set.Origin, set.Rows); err != nil {
			return err
		}
	}
	if err := ApplyLabels(ctx, tx); err != nil {
		return err
	}
	return commitNames(tx)
}

// ImportLabels adds or replaces labels as `labels import` rows, and applies them.
func ImportLabels(ctx context.Context, conn *sqlx.DB, rows []Label) error {
	tx, err := conn.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := upsertLabels(ctx, tx, LabelOriginCLI, rows); err != nil {
		return err
	}
	if err := ApplyLabels(ctx, tx); err != nil {
		return err
	}
	return commitNames(tx)
}

func upsertLabels(ctx context.Context, tx *sqlx.Tx, origin string, rows []Label) error {
	if len(rows) == 0 {
		return nil
	}
	var addrs pq.ByteaArray
	var names, kinds, logos, sources []string
	var verified []bool
	for _, r := range rows {
		addrs = append(addrs, []byte(Normalize(r.Address)))
		names, kinds, sources = append(names, r.Name), append(kinds, r.Kind), append(sources, r.Source)
		logo := ""
		if r.LogoURL != nil {
			logo = *r.LogoURL
		}
		logos, verified = append(logos, logo), append(verified, r.Verified)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO aliases (address, name, kind, logo_url, verified, source, origin)
		SELECT a, n, k, nullif(l, ''), v, s, $7
		FROM unnest($1::bytea[], $2::text[], $3::text[], $4::text[], $5::bool[], $6::text[]) AS u(a, n, k, l, v, s)
		ON CONFLICT (address) DO UPDATE SET name = excluded.name, kind = excluded.kind, logo_url = excluded.logo_url,
			verified = excluded.verified, source = excluded.source, origin = excluded.origin
		WHERE `+fmt.Sprintf(originRank, "aliases.origin")+` <= `+fmt.Sprintf(originRank, "excluded.origin"),
		addrs, pq.StringArray(names), pq.StringArray(kinds), pq.StringArray(logos), pq.BoolArray(verified), pq.StringArray(sources), origin)
	if err != nil {
		return fmt.Errorf("labels: %w", err)
	}
	return nil
}

// ApplyLabels sets the labelled columns of tokens (verified, logo_url) and validators
// (name, image_url, is_verified) from aliases: the labels own these columns, so a row
// without a label, or whose label has no logo, has none (false, NULL). A labelled row that
// is inserted (a new token, a row a reorg puts back) takes its label's values from the
// triggers of migration 00039. Only rows whose values change are written.
func ApplyLabels(ctx context.Context, tx *sqlx.Tx) error {
	if _, err := tx.ExecContext(ctx, `UPDATE tokens t SET verified = coalesce(a.verified, false), logo_url = a.logo_url
		FROM tokens t0 LEFT JOIN aliases a ON a.address = t0.address AND a.kind = 'token'
		WHERE t.address = t0.address
			AND (t.verified IS DISTINCT FROM coalesce(a.verified, false) OR t.logo_url IS DISTINCT FROM a.logo_url)`); err != nil {
		return fmt.Errorf("labels: tokens: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE validators v SET name = a.name, image_url = a.logo_url, is_verified = coalesce(a.verified, false)
		FROM validators v0 LEFT JOIN aliases a ON a.address = v0.staker_address AND a.kind = 'validator'
		WHERE v.staker_address = v0.staker_address
			AND (v.name IS DISTINCT FROM a.name OR v.image_url IS DISTINCT FROM a.logo_url OR v.is_verified IS DISTINCT FROM coalesce(a.verified, false))`); err != nil {
		return fmt.Errorf("labels: validators: %w", err)
	}
	return nil
}

// ListLabels returns every label, by address.
func ListLabels(ctx context.Context, q sqlx.QueryerContext) ([]Label, error) {
	var rows []Label
	err := sqlx.SelectContext(ctx, q, &rows, `SELECT address, name, kind, logo_url, verified, source, origin FROM aliases ORDER BY address`)
	return rows, err
}

// DeleteLabel removes the label of an address and applies the change; false when there
// was none.
func DeleteLabel(ctx context.Context, conn *sqlx.DB, address Felt) (bool, error) {
	tx, err := conn.BeginTxx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer func() { _ = tx.Rollback() }()
	res, err := tx.ExecContext(ctx, `DELETE FROM aliases WHERE address = $1`, []byte(Normalize(address)))
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	if err := ApplyLabels(ctx, tx); err != nil {
		return false, err
	}
	return n > 0, commitNames(tx)
}

// ChainID is the chain id the indexer recorded from its node ("" before it has run).
func ChainID(ctx context.Context, q sqlx.QueryerContext) (string, error) {
	var id []string
	if err := sqlx.SelectContext(ctx, q, &id, `SELECT coalesce(chain_id, '') FROM indexer_state`); err != nil {
		return "", err
	}
	if len(id) == 0 {
		return "", nil
	}
	return id[0], nil
}
