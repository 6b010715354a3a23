package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// The NFT metadata refresh queue (nft_metadata_requests): the API adds a request; the
// metadata fetcher (package nftmeta) claims the oldest for a lease, reads the item's token
// URI and document with no transaction open, and records the outcome if its claim still
// stands. A claim whose lease ran out (its fetcher stopped) is taken again.

// RequestNFTMetadata queues a refresh of an item's metadata, unless one was asked for
// within `every`: it reports whether the request was taken.
func (s *Store) RequestNFTMetadata(ctx context.Context, contract Felt, tokenID string, every time.Duration) (bool, error) {
	var taken bool
	found, err := s.getRow(ctx, &taken, `INSERT INTO nft_metadata_requests AS r (contract_address, token_id) VALUES ($1, $2::numeric)
		ON CONFLICT (contract_address, token_id) DO UPDATE SET requested_at = now(), state = 'queued', attempts = 0, error = NULL, finished_at = NULL, claimed_at = NULL
		WHERE r.requested_at < now() - $3 * interval '1 microsecond'
		RETURNING true`, Normalize(contract), tokenID, every.Microseconds())
	return found && taken, err
}

// NFTMetadataRequest is a claimed refresh: the item, its standard (721 or 1155), and when
// the claim was taken, which names the claim when its outcome is recorded.
type NFTMetadataRequest struct {
	Contract     Felt      `db:"contract_address"`
	TokenID      string    `db:"token_id"`
	ContractType int       `db:"contract_type"`
	ClaimedAt    time.Time `db:"claimed_at"`
}

// ClaimNFTMetadataRequest claims, for lease, the request whose claim ran out first or else
// the oldest queued one, in a statement of its own; nil when there is none.
func ClaimNFTMetadataRequest(ctx context.Context, q sqlx.QueryerContext, lease time.Duration) (*NFTMetadataRequest, error) {
	runOut := fmt.Sprintf(`state = 'fetching' AND claimed_at < now() - interval '%d microseconds' ORDER BY claimed_at`, lease.Microseconds())
	for _, pick := range []string{runOut, `state = 'queued' ORDER BY requested_at`} {
		var r NFTMetadataRequest
		err := sqlx.GetContext(ctx, q, &r, `WITH claimed AS (
				UPDATE nft_metadata_requests r SET state = 'fetching', claimed_at = clock_timestamp(), attempts = r.attempts + 1
				WHERE (r.contract_address, r.token_id) = (
					SELECT contract_address, token_id FROM nft_metadata_requests
					WHERE `+pick+` LIMIT 1 FOR UPDATE SKIP LOCKED)
				RETURNING r.contract_address, r.token_id, r.claimed_at)
			SELECT c.contract_address, c.token_id::text AS token_id, coalesce(i.contract_type, 721) AS contract_type, c.claimed_at
			FROM claimed c LEFT JOIN nft_items i USING (contract_address, token_id)`)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &r, nil
	}
	return nil, nil
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

// FinishNFTMetadataRequest records a refresh's outcome in tx, if r's claim still stands (it
// reports whether it did): the item's metadata when meta is not nil, else the error. A
// claim stops standing when its lease ran out and another fetcher took the request, or
// when the request was made again meanwhile; the outcome is then the other's to record. A
// document PostgreSQL refuses to store fails the request (under a savepoint), rather than
// leaving it queued to be fetched again forever.
func FinishNFTMetadataRequest(ctx context.Context, tx *sqlx.Tx, r *NFTMetadataRequest, meta *NFTMetadata, failure error) (bool, error) {
	var held bool
	err := tx.GetContext(ctx, &held, `SELECT true FROM nft_metadata_requests
		WHERE contract_address = $1 AND token_id = $2::numeric AND state = 'fetching' AND claimed_at = $3 FOR UPDATE`,
		Normalize(r.Contract), r.TokenID, r.ClaimedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if meta != nil {
		if _, err := tx.ExecContext(ctx, `SAVEPOINT metadata`); err != nil {
			return false, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE nft_items SET token_uri = $3, name = $4, description = $5, external_url = $6,
			image_url = $7, animation_url = $8, youtube_url = $9, attributes = $10::jsonb
			WHERE contract_address = $1 AND token_id = $2::numeric`,
			Normalize(r.Contract), r.TokenID, cleanText(meta.TokenURI), cleanPtr(meta.Name), cleanPtr(meta.Description),
			cleanPtr(meta.ExternalURL), cleanPtr(meta.ImageURL), cleanPtr(meta.AnimationURL), cleanPtr(meta.YoutubeURL),
			cleanText(string(meta.Attributes))); err != nil {
			if _, rerr := tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT metadata`); rerr != nil {
				return false, rerr
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
	_, err = tx.ExecContext(ctx, `UPDATE nft_metadata_requests SET state = $3, error = $4, finished_at = now()
		WHERE contract_address = $1 AND token_id = $2::numeric`, Normalize(r.Contract), r.TokenID, state, msg)
	return err == nil, err
}

func cleanPtr(s *string) any {
	if s == nil {
		return nil
	}
	return cleanText(*s)
}
