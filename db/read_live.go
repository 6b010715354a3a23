package db

import "context"

// The rows of a range of blocks, in chain order, for the live subscriptions: one read per
// kind and notice, shared by every subscriber of the API process, each of whom filters it.

// BlocksInRange lists blocks from..to, oldest first.
func (s *Store) BlocksInRange(ctx context.Context, from, to int64) ([]*Block, error) {
	var rows []*Block
	err := s.selectRows(ctx, &rows, `SELECT `+blockCols+` FROM blocks WHERE number BETWEEN $1 AND $2 ORDER BY number`, from, to)
	return rows, err
}

// TransactionsInRange lists the transactions of blocks from..to in chain order.
func (s *Store) TransactionsInRange(ctx context.Context, from, to int64) ([]*Transaction, error) {
	var rows []*Transaction
	err := s.selectRows(ctx, &rows, `SELECT `+txListCols+` FROM transactions t
		WHERE t.block_number BETWEEN $1 AND $2 ORDER BY t.block_number, t.tx_index`, from, to)
	if err != nil {
		return nil, err
	}
	return rows, s.nameTransactions(ctx, rows)
}

// EventsInRange lists the events of blocks from..to in chain order.
func (s *Store) EventsInRange(ctx context.Context, from, to int64) ([]*Event, error) {
	var rows []*Event
	err := s.selectRows(ctx, &rows, `SELECT `+eventCols+` FROM events e
		JOIN transactions t ON t.block_number = e.block_number AND t.tx_index = e.tx_index`+eventTransferJoin("BETWEEN $1 AND $2")+`
		WHERE e.block_number BETWEEN $1 AND $2 AND t.block_number BETWEEN $1 AND $2
		ORDER BY e.block_number, e.tx_index, e.event_index`, from, to)
	if err != nil {
		return nil, err
	}
	return rows, s.nameEvents(ctx, rows)
}

// TransfersInRange lists the token transfers of blocks from..to in chain order.
func (s *Store) TransfersInRange(ctx context.Context, from, to int64) ([]*TokenTransfer, error) {
	var rows []*TokenTransfer
	err := s.selectRows(ctx, &rows, `SELECT `+tokenTransferCols+` FROM token_transfers e`+tokenTransferJoin+`
		WHERE e.block_number BETWEEN $1 AND $2 AND t.block_number BETWEEN $1 AND $2
		ORDER BY e.block_number, e.tx_index, e.event_index`, from, to)
	if err != nil {
		return nil, err
	}
	return rows, s.nameTransfers(ctx, rows)
}

// NftTransfersInRange lists the NFT transfers (ERC-721 and ERC-1155, mints and burns) of
// blocks from..to in chain order, the rows of an ERC-1155 batch event by sub index.
func (s *Store) NftTransfersInRange(ctx context.Context, from, to int64) ([]*NftEvent, error) {
	var rows []*NftEvent
	err := s.selectRows(ctx, &rows, `SELECT `+nftEventCols+` FROM nft_events e WHERE e.block_number BETWEEN $1 AND $2
		ORDER BY e.block_number, e.tx_index, e.event_index, e.sub_index`, from, to)
	return rows, err
}
