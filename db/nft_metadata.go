package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// The NFT metadata refresh queue (nft_metadata_requests): the API adds a request, the
// metadata fetcher (package nftmeta) claims the oldest with FOR UPDATE SKIP LOCKED, reads
// the item's token URI and document, and records the outcome.

// RequestNFTMetadata queues a refresh of an item's metadata, unless one was asked for
// within `every`: it reports whether the request was taken.
func (s *Store) RequestNFTMetadata(ctx context.Context, contract Felt, tokenID string, every time.Duration) (bool, error) {
	var taken bool
	found, err := s.getRow(ctx, &taken, `INSERT INTO nft_metadata_requests AS r (contract_address, token_id) VALUES ($1, $2::numeric)
		ON CONFLICT (contract_address, token_id) DO UPDATE SET requested_at = now(), state = 'queued', attempts = 0, error = NULL, finished_at = NULL
		WHERE r.requested_at < now() - $3 * interval '1 microsecond'
		RETURNING true`, Normalize(contract), tokenID, every.Microseconds())
	return found && taken, err
}

// NFTMetadataRequest is a claimed refresh: the item, and its standard (721 or 1155).
type NFTMetadataRequest struct {
	Contract     Felt   `db:"contract_address"`
	TokenID      string `db:"token_id"`
	ContractType int    `db:"contract_type"`
}

// ClaimNFTMetadataRequest takes the oldest queued request, in tx (which holds its row
// until it commits); nil when none is queued.
func ClaimNFTMetadataRequest(ctx context.Context, tx *sqlx.Tx) (*NFTMetadataRequest, error) {
	var r NFTMetadataRequest
	err := tx.GetContext(ctx, &r, `SELECT q.contract_address, q.token_id::text AS token_id, coalesce(i.contract_type, 721) AS contract_type
		FROM nft_metadata_requests q LEFT JOIN nft_items i USING (contract_address, token_id)
		WHERE q.state = 'queued' ORDER BY q.requested_at LIMIT 1 FOR UPDATE OF q SKIP LOCKED`)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// NFTMetadata is what an item's metadata document says, as nft_items keeps it.
type NFTMetadata struct {
	TokenURI     string
	Name         *string
	Description  *string
	ExternalURL  *string
	ImageURL     *string
	AnimationURL *string
	YoutubeURL   *string
	Attributes   JSON // a JSON array
}

// FinishNFTMetadataRequest records a refresh's outcome in tx: the item's metadata when
// meta is not nil, else the error. A document PostgreSQL refuses to store fails the
// request (under a savepoint), rather than leaving it queued to be fetched again forever.
func FinishNFTMetadataRequest(ctx context.Context, tx *sqlx.Tx, r *NFTMetadataRequest, meta *NFTMetadata, failure error) error {
	if meta != nil {
		if _, err := tx.ExecContext(ctx, `SAVEPOINT metadata`); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE nft_items SET token_uri = $3, name = $4, description = $5, external_url = $6,
			image_url = $7, animation_url = $8, youtube_url = $9, attributes = $10::jsonb
			WHERE contract_address = $1 AND token_id = $2::numeric`,
			Normalize(r.Contract), r.TokenID, cleanText(meta.TokenURI), cleanPtr(meta.Name), cleanPtr(meta.Description),
			cleanPtr(meta.ExternalURL), cleanPtr(meta.ImageURL), cleanPtr(meta.AnimationURL), cleanPtr(meta.YoutubeURL),
			cleanText(string(meta.Attributes))); err != nil {
			if _, rerr := tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT metadata`); rerr != nil {
				return rerr
			}
			failure = fmt.Errorf("the document could not be stored: %w", err)
		}
	}
	state, msg := "done", (*string)(nil)
	if failure != nil {
		state = "failed"
		m := cleanText(failure.Error())
		msg = &m
	}
	_, err := tx.ExecContext(ctx, `UPDATE nft_metadata_requests SET state = $3, error = $4, attempts = attempts + 1, finished_at = now()
		WHERE contract_address = $1 AND token_id = $2::numeric`, Normalize(r.Contract), r.TokenID, state, msg)
	return err
}

func cleanPtr(s *string) any {
	if s == nil {
		return nil
	}
	return cleanText(*s)
}
