package db

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// StarknetIDName is a row of starknet_id_names: the main Starknet ID domain of an address,
// from the naming contract's AddressToDomainUpdate events (migration 00032).
type StarknetIDName struct {
	Address     Felt   `db:"address"`
	Domain      string `db:"domain"`
	Root        string `db:"root"`
	BlockNumber int64  `db:"block_number"`
}

// StarknetIDDomain is a row of starknet_id_domains: a registered domain's expiry.
type StarknetIDDomain struct {
	Domain string `db:"domain"`
	Expiry int64  `db:"expiry"`
}

// UpsertStarknetIDNames writes main-domain rows.
func UpsertStarknetIDNames(ctx context.Context, tx *sqlx.Tx, rows []StarknetIDName) error {
	return upsertAll(ctx, tx, "starknet_id_names", 1, rows)
}

// DeleteStarknetIDNames removes the main domains of addresses (cleared by their owner).
func DeleteStarknetIDNames(ctx context.Context, tx *sqlx.Tx, addrs []Felt) error {
	if len(addrs) == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM starknet_id_names WHERE address = ANY($1)`, ByteaKeys(addrs))
	return err
}

// UpsertStarknetIDDomains writes domain expiries.
func UpsertStarknetIDDomains(ctx context.Context, tx *sqlx.Tx, rows []StarknetIDDomain) error {
	return upsertAll(ctx, tx, "starknet_id_domains", 1, rows)
}
