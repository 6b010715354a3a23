-- The schema of starkgraph, in one migration: what migrations 00001-00056 built, folded into
-- the tables as they are today (the project had not been released, so no database needed
-- those steps). Later changes are new migrations numbered from 00057 on, applied on top.
-- db/schema.sql is this database dumped (TestSchemaDump keeps it equal); CONTRIBUTING.md
-- says what a new table or column needs (TestEveryTableIsListed checks it).
--
-- Tables are grouped by what they hold. Each says, in its comment (and COMMENT ON TABLE),
-- what one row is and who writes it. Every index says which query it serves (COMMENT ON
-- INDEX, TestEveryIndexServesADocumentedQuery).

-- +goose Up
CREATE TYPE tx_execution_status AS ENUM (
    'SUCCEEDED',
    'REVERTED'
);
CREATE TYPE tx_finality_status AS ENUM (
    'RECEIVED',
    'CANDIDATE',
    'PRE_CONFIRMED',
    'ACCEPTED_ON_L2',
    'ACCEPTED_ON_L1'
);

-- ============================================================================================
-- Felts
-- A felt (a Starknet field element) is stored as bytea without its leading zero bytes. A
-- list of felts (calldata, signatures, event keys and data) is packed into one bytea: each felt
-- as one length byte and its bytes (db/felt_ids.go, starknet.Felt). Felts that many rows of a
-- per-block table name (an account, a token, a selector) are stored once in felt_ids, and
-- those rows hold their 4-byte id; the ..._named views show the felts again, for SQL by hand.
-- ============================================================================================

-- The packed form of one felt: its length byte, then its bytes.
-- +goose StatementBegin
CREATE FUNCTION felt_packed(f bytea) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT set_byte('\x00'::bytea, 0, length(f)) || f $$;
-- +goose StatementEnd

-- The packed form of a felt list (leading zero bytes stripped; a NULL element is zero).
-- +goose StatementBegin
CREATE FUNCTION felts_pack(felts bytea[]) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
DECLARE
    parts bytea[] := '{}';
    f     bytea;
BEGIN
    FOREACH f IN ARRAY felts LOOP
        f := ltrim(coalesce(f, ''::bytea), '\x00'::bytea);
        IF length(f) > 32 THEN
            RAISE EXCEPTION 'felts_pack: a felt of % bytes (at most 32)', length(f);
        END IF;
        parts := parts || (set_byte('\x00'::bytea, 0, length(f)) || f);
    END LOOP;
    RETURN coalesce((SELECT string_agg(p, ''::bytea ORDER BY i) FROM unnest(parts) WITH ORDINALITY AS u(p, i)), ''::bytea);
END $$;
-- +goose StatementEnd

-- The felts of a packed list, as a bytea[] (for SQL by hand).
-- +goose StatementBegin
CREATE FUNCTION felts_unpack(packed bytea) RETURNS bytea[]
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
DECLARE
    out bytea[] := '{}';
    pos integer := 0;
    len integer;
BEGIN
    WHILE pos < length(packed) LOOP
        len := get_byte(packed, pos);
        IF len > 32 OR pos + 1 + len > length(packed) THEN
            RAISE EXCEPTION 'felts_unpack: a felt of length % at byte % of %', len, pos, length(packed);
        END IF;
        out := out || substr(packed, pos + 2, len);
        pos := pos + 1 + len;
    END LOOP;
    RETURN out;
END $$;
-- +goose StatementEnd

-- How many felts a packed list holds.
-- +goose StatementBegin
CREATE FUNCTION felts_count(packed bytea) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
DECLARE
    pos integer := 0;
    k   integer := 0;
BEGIN
    WHILE pos < length(packed) LOOP
        pos := pos + 1 + get_byte(packed, pos);
        k := k + 1;
    END LOOP;
    RETURN k;
END $$;
-- +goose StatementEnd

-- The n-th felt of a packed list, counted from 1 as an array's (keys[2] is felts_at(keys, 2)),
-- or NULL when the list is shorter.
-- +goose StatementBegin
CREATE FUNCTION felts_at(packed bytea, n integer) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
DECLARE
    pos integer := 0;
    k   integer := 1;
    len integer;
BEGIN
    WHILE pos < length(packed) LOOP
        len := get_byte(packed, pos);
        IF k = n THEN
            RETURN substr(packed, pos + 2, len);
        END IF;
        pos := pos + 1 + len;
        k := k + 1;
    END LOOP;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- numeric_felt's loop, for integers of 8 bytes and more.
-- +goose StatementBegin
CREATE FUNCTION numeric_felt_wide(n numeric) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
DECLARE
    out bytea := ''::bytea;
BEGIN
    WHILE n > 0 LOOP
        out := set_byte('\x00'::bytea, 0, mod(n, 256)::integer) || out;
        n := div(n, 256);
    END LOOP;
    RETURN out;
END $$;
-- +goose StatementEnd

-- A non-negative integer as a felt's column form: big-endian, no leading zero byte. Most
-- amounts fit in a bigint, whose bytes int8send gives at once; the loop, byte by byte in
-- numeric, is 25 times slower. (Not STRICT, so that PostgreSQL can inline it.)
-- +goose StatementBegin
CREATE FUNCTION numeric_felt(n numeric) RETURNS bytea
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
SELECT CASE WHEN n < 9223372036854775808 THEN ltrim(int8send(n::bigint), '\x00'::bytea) ELSE numeric_felt_wide(n) END $$;
-- +goose StatementEnd

-- A u256 amount as its two felts, low and high, packed.
-- +goose StatementBegin
CREATE FUNCTION u256_packed(amount numeric) RETURNS bytea
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
SELECT CASE WHEN amount < 9223372036854775808 THEN felt_packed(numeric_felt(amount)) || '\x00'::bytea
    ELSE felt_packed(numeric_felt(mod(amount, 340282366920938463463374607431768211456)))
         || felt_packed(numeric_felt(div(amount, 340282366920938463463374607431768211456))) END $$;
-- +goose StatementEnd

-- The keys after the first of a folded Transfer event, packed.
-- +goose StatementBegin
CREATE FUNCTION transfer_event_keys_tail(layout smallint, from_felt bytea, to_felt bytea) RETURNS bytea
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
SELECT CASE layout WHEN 2 THEN felt_packed(from_felt) || felt_packed(to_felt) ELSE ''::bytea END $$;
-- +goose StatementEnd

-- The data of a folded Transfer event (events.transfer_layout 1, 2 or 3), packed.
-- +goose StatementBegin
CREATE FUNCTION transfer_event_data(layout smallint, from_felt bytea, to_felt bytea, amount numeric) RETURNS bytea
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
SELECT CASE layout
    WHEN 1 THEN felt_packed(from_felt) || felt_packed(to_felt) || u256_packed(amount)
    WHEN 2 THEN u256_packed(amount)
    WHEN 3 THEN felt_packed(from_felt) || felt_packed(to_felt) || felt_packed(numeric_felt(amount))
END $$;
-- +goose StatementEnd

-- felt_ids: one felt that rows of the per-block tables name by id. Written by the indexer
-- (ChainRows.assignIDs, db/felt_ids.go) and by felt_id() in SQL; ids are never reused or
-- undone: a felt met only in orphaned blocks keeps its id.
CREATE TABLE felt_ids (
    id integer NOT NULL GENERATED BY DEFAULT AS IDENTITY,
    felt bytea NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT felt_ids_felt UNIQUE (felt)
);
COMMENT ON TABLE felt_ids IS 'one felt that rows of the per-block tables name by id. Written by the indexer (ChainRows.assignIDs, db/felt_ids.go) and by felt_id() in SQL; ids are never reused or undone: a felt met only in orphaned blocks keeps its id.';
COMMENT ON INDEX felt_ids_pkey IS 'a felt by its id, for the rows that name it by id';
COMMENT ON INDEX felt_ids_felt IS 'a felt''s id, in every statement that filters by a felt stored as an id (db/felt_ids.go feltID), and its assignment';

-- felt_id is the id of a felt (leading zero bytes stripped, as the indexer stores felts),
-- assigned when it has none: for SQL that writes rows by hand (tests, an operator's
-- repair). The indexer assigns ids in batches (db/felt_ids.go).
-- +goose StatementBegin
CREATE FUNCTION felt_id(raw bytea) RETURNS integer
    LANGUAGE plpgsql
    AS $$
DECLARE
    f     bytea := ltrim(raw, '\x00'::bytea);
    found integer;
BEGIN
    SELECT id INTO found FROM felt_ids WHERE felt = f;
    IF found IS NULL THEN
        INSERT INTO felt_ids (felt) VALUES (f) ON CONFLICT (felt) DO NOTHING RETURNING id INTO found;
        IF found IS NULL THEN
            SELECT id INTO found FROM felt_ids WHERE felt = f;
        END IF;
    END IF;
    RETURN found;
END $$;
-- +goose StatementEnd

-- ============================================================================================
-- Indexer bookkeeping
-- Where the indexer is, and what it needs to undo a reorg, to make partitions and to finish
-- an interrupted bulk load.
-- ============================================================================================

-- indexer_state: the one row (id = 1) saying where the indexer is and where the node is. Written by
-- the indexer (db.SetIndexerHead, write_state.go); read by indexerStatus and /beta/api-status.
CREATE TABLE indexer_state (
    id smallint DEFAULT 1 NOT NULL,
    head_block bigint,
    head_hash bytea,
    node_head bigint,
    chain_id text,
    spec_version text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    PRIMARY KEY (id),
    CHECK (id = 1)
);
COMMENT ON TABLE indexer_state IS 'the one row (id = 1) saying where the indexer is and where the node is. Written by the indexer (db.SetIndexerHead, write_state.go); read by indexerStatus and /beta/api-status.';

-- block_partitioning: the one row saying how many blocks a partition of transactions, calls, events
-- and token_transfers holds. Set by the operator before indexing; read by db.Partitions.
CREATE TABLE block_partitioning (
    only_row boolean DEFAULT true NOT NULL,
    blocks_per_partition bigint DEFAULT 1000000 NOT NULL,
    PRIMARY KEY (only_row),
    CHECK (blocks_per_partition > 0),
    CHECK (only_row)
);
COMMENT ON TABLE block_partitioning IS 'the one row saying how many blocks a partition of transactions, calls, events and token_transfers holds. Set by the operator before indexing; read by db.Partitions.';

-- undo_rows: one image of a row of a journaled table (db/write_undo.go journaledTables) as it was
-- before a block near the head changed it (old is null when the block made the row). Written by
-- the indexer (db.Journal); db.UndoAbove puts the oldest image above a fork point back; entries
-- older than the reorg window are pruned.
CREATE TABLE undo_rows (
    block_number bigint NOT NULL,
    seq bigserial NOT NULL,
    tbl text NOT NULL,
    key jsonb NOT NULL,
    old jsonb,
    PRIMARY KEY (block_number, seq)
);
COMMENT ON TABLE undo_rows IS 'one image of a row of a journaled table (db/write_undo.go journaledTables) as it was before a block near the head changed it (old is null when the block made the row). Written by the indexer (db.Journal); db.UndoAbove puts the oldest image above a fork point back; entries older than the reorg window are pruned.';

-- deferred_constraints: the definition of an index or foreign key of a per-block table that a bulk
-- load dropped (db.DeferConstraints, db/bulk.go), written in the transaction that drops it;
-- db.RestoreConstraints builds it again and deletes the row. Empty outside a bulk load.
CREATE TABLE deferred_constraints (
    name text NOT NULL,
    table_name text NOT NULL,
    kind text NOT NULL,
    definition text NOT NULL,
    comment text,
    PRIMARY KEY (name),
    CHECK (kind = ANY (ARRAY['index'::text, 'foreign key'::text]))
);
COMMENT ON TABLE deferred_constraints IS 'the definition of an index or foreign key of a per-block table that a bulk load dropped (db.DeferConstraints, db/bulk.go), written in the transaction that drops it; db.RestoreConstraints builds it again and deletes the row. Empty outside a bulk load.';

-- ============================================================================================
-- The chain
-- What the node says, append-only: written by the indexer in one COPY per table and batch
-- (db.ChainRows, db.InsertChainRows), removed on a reorg by the cascade from blocks (and from
-- transactions). transactions, calls, events and token_transfers are partitioned by block range
-- (db.PartitionedTables); the per-block tables are bulk loaded (db/bulk.go bulkTables). Column
-- order matters: COPY writes the columns in the order of the row types' db tags.
-- ============================================================================================

-- A block's txs_before is the number of transactions of the blocks below it, from its parent's row.
-- +goose StatementBegin
CREATE FUNCTION blocks_txs_before() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    NEW.txs_before := coalesce((SELECT txs_before + tx_count FROM blocks WHERE number = NEW.number - 1), 0);
    RETURN NEW;
END $$;
-- +goose StatementEnd

-- blocks: one block of the canonical chain, with its counts and fee sums. Written by the indexer;
-- status moves to ACCEPTED_ON_L1 in place (write_state.go); a reorg deletes the blocks above
-- its fork point, and every per-block row with them.
CREATE TABLE blocks (
    number bigint NOT NULL,
    hash bytea NOT NULL,
    parent_hash bytea NOT NULL,
    "timestamp" bigint NOT NULL,
    status text NOT NULL,
    state_root bytea,
    sequencer_address bytea,
    starknet_version text DEFAULT ''::text NOT NULL,
    l1_da_mode text,
    l1_gas_price_wei numeric(78,0),
    l1_gas_price_fri numeric(78,0),
    l1_data_gas_price_wei numeric(78,0),
    l1_data_gas_price_fri numeric(78,0),
    l2_gas_price_wei numeric(78,0),
    l2_gas_price_fri numeric(78,0),
    tx_count integer DEFAULT 0 NOT NULL,
    event_count integer DEFAULT 0 NOT NULL,
    message_count integer DEFAULT 0 NOT NULL,
    l1_verification_tx_hash bytea,
    fees_wei numeric(78,0) DEFAULT 0 NOT NULL,
    fee_txs_wei integer DEFAULT 0 NOT NULL,
    fees_fri numeric(78,0) DEFAULT 0 NOT NULL,
    fee_txs_fri integer DEFAULT 0 NOT NULL,
    txs_before bigint DEFAULT 0 NOT NULL,
    PRIMARY KEY (number),
    UNIQUE (hash)
);
COMMENT ON TABLE blocks IS 'one block of the canonical chain, with its counts and fee sums. Written by the indexer; status moves to ACCEPTED_ON_L1 in place (write_state.go); a reorg deletes the blocks above its fork point, and every per-block row with them.';

CREATE INDEX blocks_accepted_on_l2 ON blocks (number) WHERE (status = 'ACCEPTED_ON_L2'::text);
COMMENT ON INDEX blocks_accepted_on_l2 IS 'finality updates: the oldest block not yet accepted on L1 (write_state.go)';

CREATE INDEX blocks_time_number ON blocks ("timestamp", number);
COMMENT ON INDEX blocks_time_number IS 'the block at a time: transfers'' time bounds, daily figures';

CREATE INDEX blocks_txs_before ON blocks (txs_before, number);
COMMENT ON INDEX blocks_txs_before IS 'the block holding the n-th transaction: /beta/txns pages by position (read_chain.go)';

CREATE TRIGGER blocks_txs_before BEFORE INSERT ON blocks FOR EACH ROW EXECUTE FUNCTION blocks_txs_before();

-- transactions: one transaction, by (block_number, tx_index); its sender, contract and class are
-- felt ids (transactions_named shows them). Written by the indexer; the L1 follower sets
-- l1_transaction_hash of L1_HANDLER transactions (db/l1.go).
CREATE TABLE transactions (
    block_number integer NOT NULL,
    tx_index integer NOT NULL,
    hash bytea NOT NULL,
    type text NOT NULL,
    version smallint NOT NULL,
    "timestamp" bigint NOT NULL,
    sender_id integer,
    contract_id integer,
    class_id integer,
    entry_point_selector bytea,
    nonce numeric(78,0),
    max_fee numeric(78,0),
    tip numeric(78,0),
    actual_fee numeric(78,0) DEFAULT 0 NOT NULL,
    actual_fee_unit text DEFAULT 'WEI'::text NOT NULL,
    execution_status tx_execution_status NOT NULL,
    finality_status tx_finality_status NOT NULL,
    revert_reason text,
    calldata bytea DEFAULT '\x'::bytea NOT NULL,
    constructor_calldata bytea,
    signature bytea DEFAULT '\x'::bytea NOT NULL,
    compiled_class_hash bytea,
    contract_address_salt bytea,
    paymaster_data bytea,
    account_deployment_data bytea,
    nonce_da_mode text,
    fee_da_mode text,
    message_hash bytea,
    l1_transaction_hash bytea,
    event_count integer DEFAULT 0 NOT NULL,
    partial_calls_parsing boolean DEFAULT false NOT NULL,
    max_l1_gas numeric(78,0),
    max_l1_gas_price numeric(78,0),
    max_l2_gas numeric(78,0),
    max_l2_gas_price numeric(78,0),
    max_l1_data_gas numeric(78,0),
    max_l1_data_gas_price numeric(78,0),
    l1_gas_used numeric(20,0),
    l2_gas_used numeric(20,0),
    l1_data_gas_used numeric(20,0),
    PRIMARY KEY (block_number, tx_index),
    FOREIGN KEY (block_number) REFERENCES blocks(number) ON DELETE CASCADE
) PARTITION BY RANGE (block_number);
COMMENT ON TABLE transactions IS 'one transaction, by (block_number, tx_index); its sender, contract and class are felt ids (transactions_named shows them). Written by the indexer; the L1 follower sets l1_transaction_hash of L1_HANDLER transactions (db/l1.go).';
COMMENT ON INDEX transactions_pkey IS 'a transaction by position, joins from every per-transaction table, the foreign keys that reference it and chain-order pages of /beta/txns';

CREATE INDEX transactions_contract ON transactions (contract_id, block_number, tx_index);
COMMENT ON INDEX transactions_contract IS 'transactions to a contract in chain order: /beta/txns?to=, GraphQL transactions(filter: {contract})';

CREATE INDEX transactions_hash ON transactions ("substring"(hash, 1, 6));
COMMENT ON INDEX transactions_hash IS 'a transaction by hash (/beta/txns/{hash}, GraphQL transaction(hash)) and by hex prefix (search): the first six bytes of the hash, compared whole in the row';

CREATE INDEX transactions_message_hash ON transactions (message_hash) WHERE (message_hash IS NOT NULL);
COMMENT ON INDEX transactions_message_hash IS 'the L1 follower finds an L1_HANDLER transaction by its message hash';

CREATE INDEX transactions_sender ON transactions (sender_id, block_number, tx_index);
COMMENT ON INDEX transactions_sender IS 'a sender''s transactions in chain order: /beta/txns?sender_address=, GraphQL transactions(filter: {sender})';

CREATE INDEX transactions_type ON transactions (type, block_number, tx_index);
COMMENT ON INDEX transactions_type IS 'transactions of a type in chain order: /beta/txns?type=, GraphQL transactions(filter: {type})';

-- The partition of the first blocks; the indexer makes the next ones (db/partitions.go).
CREATE TABLE transactions_0 PARTITION OF transactions FOR VALUES FROM (MINVALUE) TO (1000000);

-- transactions_named: transactions with its sender, contract and class, for SQL written by hand.
CREATE VIEW transactions_named AS
SELECT t.*, s.felt AS sender_address, c.felt AS contract_address, k.felt AS class_hash
FROM transactions t
LEFT JOIN felt_ids s ON s.id = t.sender_id
LEFT JOIN felt_ids c ON c.id = t.contract_id
LEFT JOIN felt_ids k ON k.id = t.class_id;
COMMENT ON VIEW transactions_named IS 'transactions with its sender, contract and class, for SQL written by hand.';

-- calls: one call of a transaction's execution (its trace), in order; contract, selector and class
-- are felt ids. A call's calldata is a position in its transaction's calldata when it is
-- there (calldata_offset, calldata_length), else its own. Written by the indexer.
CREATE TABLE calls (
    block_number bigint NOT NULL,
    tx_index integer NOT NULL,
    call_index integer NOT NULL,
    contract_id integer NOT NULL,
    selector_id integer NOT NULL,
    class_id integer,
    calldata_offset smallint,
    calldata_length smallint,
    entrypoint text,
    entrypoint_type text DEFAULT 'EXTERNAL'::text NOT NULL,
    call_type text DEFAULT 'CALL'::text NOT NULL,
    calldata bytea DEFAULT '\x'::bytea,
    inputs jsonb,
    outputs jsonb,
    PRIMARY KEY (block_number, tx_index, call_index),
    FOREIGN KEY (block_number, tx_index) REFERENCES transactions(block_number, tx_index) ON DELETE CASCADE
) PARTITION BY RANGE (block_number);
COMMENT ON TABLE calls IS 'one call of a transaction''s execution (its trace), in order; contract, selector and class are felt ids. A call''s calldata is a position in its transaction''s calldata when it is there (calldata_offset, calldata_length), else its own. Written by the indexer.';
COMMENT ON INDEX calls_pkey IS 'a transaction''s calls (read_chain.go, by (block_number, tx_index)), the cascade from transactions';

-- The partition of the first blocks; the indexer makes the next ones (db/partitions.go).
CREATE TABLE calls_0 PARTITION OF calls FOR VALUES FROM (MINVALUE) TO ('1000000');

-- calls_named: calls with their contract, selector and class, for SQL written by hand.
CREATE VIEW calls_named AS
SELECT c.block_number, c.tx_index, c.call_index, a.felt AS contract_address, s.felt AS selector, k.felt AS class_hash,
       c.calldata_offset, c.calldata_length, c.entrypoint, c.entrypoint_type, c.call_type, c.calldata, c.inputs, c.outputs
FROM calls c JOIN felt_ids a ON a.id = c.contract_id JOIN felt_ids s ON s.id = c.selector_id
LEFT JOIN felt_ids k ON k.id = c.class_id;
COMMENT ON VIEW calls_named IS 'calls with their contract, selector and class, for SQL written by hand.';

-- events: one event a transaction emitted; emitter and first key are felt ids, the other keys and the
-- data packed felts. An ERC-20 Transfer keeps only its layout (transfer_layout): its keys and
-- data are made from its token_transfers row when read (db/transfer_events.go). Written by the
-- indexer.
CREATE TABLE events (
    block_number integer NOT NULL,
    tx_index integer NOT NULL,
    event_index integer NOT NULL,
    from_id integer NOT NULL,
    key0_id integer,
    keys_tail bytea DEFAULT '\x'::bytea NOT NULL,
    data bytea DEFAULT '\x'::bytea NOT NULL,
    transfer_layout smallint,
    PRIMARY KEY (block_number, tx_index, event_index),
    FOREIGN KEY (block_number, tx_index) REFERENCES transactions(block_number, tx_index) ON DELETE CASCADE
) PARTITION BY RANGE (block_number);
COMMENT ON TABLE events IS 'one event a transaction emitted; emitter and first key are felt ids, the other keys and the data packed felts. An ERC-20 Transfer keeps only its layout (transfer_layout): its keys and data are made from its token_transfers row when read (db/transfer_events.go). Written by the indexer.';
COMMENT ON INDEX events_pkey IS 'a transaction''s events, events of a block range in chain order, the cascade from transactions';

CREATE INDEX events_from ON events (from_id, block_number, tx_index, event_index);
COMMENT ON INDEX events_from IS 'events of a contract in chain order: /beta/events?contract=, GraphQL events(filter: {contract})';

CREATE INDEX events_key0 ON events (key0_id, block_number, tx_index, event_index);
COMMENT ON INDEX events_key0 IS 'events of a key (selector) in chain order: GraphQL events(filter: {key})';

-- The partition of the first blocks; the indexer makes the next ones (db/partitions.go).
CREATE TABLE events_0 PARTITION OF events FOR VALUES FROM (MINVALUE) TO (1000000);

-- messages: one message between L1 and L2 that a transaction consumed (direction 0, L1 -> L2) or
-- sent (1, L2 -> L1). Written by the indexer.
CREATE TABLE messages (
    block_number bigint NOT NULL,
    tx_index integer NOT NULL,
    direction smallint NOT NULL,
    msg_index integer NOT NULL,
    message_hash bytea NOT NULL,
    from_address bytea NOT NULL,
    to_address bytea NOT NULL,
    l2_address bytea NOT NULL,
    selector bytea,
    payload bytea NOT NULL,
    transaction_hash bytea NOT NULL,
    "timestamp" bigint NOT NULL,
    PRIMARY KEY (block_number, tx_index, direction, msg_index),
    CHECK (direction = ANY (ARRAY[0, 1])),
    FOREIGN KEY (block_number, tx_index) REFERENCES transactions(block_number, tx_index) ON DELETE CASCADE
);
COMMENT ON TABLE messages IS 'one message between L1 and L2 that a transaction consumed (direction 0, L1 -> L2) or sent (1, L2 -> L1). Written by the indexer.';
COMMENT ON INDEX messages_pkey IS 'a transaction''s L1<->L2 messages, the cascade from transactions';

CREATE INDEX messages_contract ON messages (l2_address, block_number DESC, tx_index DESC, direction DESC, msg_index DESC);
COMMENT ON INDEX messages_contract IS 'messages of an L2 contract, newest first';

CREATE INDEX messages_direction ON messages (direction, block_number DESC, tx_index DESC, msg_index DESC);
COMMENT ON INDEX messages_direction IS 'messages of one direction, newest first';

CREATE INDEX messages_hash ON messages (message_hash, block_number DESC, tx_index DESC, direction DESC, msg_index DESC);
COMMENT ON INDEX messages_hash IS 'messages by message hash';

-- meta_transactions: one outside execution (SNIP-9 execute_from_outside) inside a transaction: the
-- relayer is the transaction's sender, the account that signed the intent contract_address.
-- Written by the indexer.
CREATE TABLE meta_transactions (
    block_number bigint NOT NULL,
    tx_index integer NOT NULL,
    call_index integer DEFAULT 0 NOT NULL,
    contract_address bytea NOT NULL,
    caller_address bytea,
    version smallint DEFAULT 2 NOT NULL,
    operations text DEFAULT ''::text NOT NULL,
    actions jsonb,
    PRIMARY KEY (block_number, tx_index, call_index),
    FOREIGN KEY (block_number, tx_index) REFERENCES transactions(block_number, tx_index) ON DELETE CASCADE
);
COMMENT ON TABLE meta_transactions IS 'one outside execution (SNIP-9 execute_from_outside) inside a transaction: the relayer is the transaction''s sender, the account that signed the intent contract_address. Written by the indexer.';
COMMENT ON INDEX meta_transactions_pkey IS 'a transaction''s meta transactions, the cascade from transactions';

CREATE INDEX meta_transactions_contract ON meta_transactions (contract_address, block_number DESC, tx_index DESC);
COMMENT ON INDEX meta_transactions_contract IS 'meta transactions of a contract, newest first';

CREATE INDEX meta_transactions_recent ON meta_transactions (block_number DESC, tx_index DESC);
COMMENT ON INDEX meta_transactions_recent IS 'the newest meta transactions';

-- l1_messages: one L1 -> L2 message seen on Ethereum (the core contract's LogMessageToL2), with the L1
-- transaction that sent it. Written by the L1 follower (--l1-rpc, l1/, db/l1.go).
CREATE TABLE l1_messages (
    message_hash bytea NOT NULL,
    l1_tx_hash bytea NOT NULL,
    l1_block bigint NOT NULL,
    l1_log_index integer NOT NULL,
    PRIMARY KEY (message_hash)
);
COMMENT ON TABLE l1_messages IS 'one L1 -> L2 message seen on Ethereum (the core contract''s LogMessageToL2), with the L1 transaction that sent it. Written by the L1 follower (--l1-rpc, l1/, db/l1.go).';

-- l1_state: the one row saying which Ethereum block the L1 follower reads next. Written by the L1
-- follower.
CREATE TABLE l1_state (
    id smallint NOT NULL,
    next_block bigint NOT NULL,
    PRIMARY KEY (id),
    CHECK (id = 1)
);
COMMENT ON TABLE l1_state IS 'the one row saying which Ethereum block the L1 follower reads next. Written by the L1 follower.';

-- ============================================================================================
-- Names and labels
-- Names of addresses (docs/names.md): the operator's labels and Starknet ID.
-- ============================================================================================

-- aliases: one label of an address: a name, a kind, a logo, a verified flag. Written by the embedded
-- default list, the operator's label file and `starkgraph labels` (labels/, db/labels.go);
-- tokens and validators take theirs when their row is made.
CREATE TABLE aliases (
    address bytea NOT NULL,
    name text NOT NULL,
    kind text DEFAULT 'contract'::text NOT NULL,
    logo_url text,
    verified boolean DEFAULT false NOT NULL,
    source text DEFAULT ''::text NOT NULL,
    origin text DEFAULT 'cli'::text NOT NULL,
    PRIMARY KEY (address),
    CHECK (kind = ANY (ARRAY['token'::text, 'contract'::text, 'class'::text, 'validator'::text, 'account'::text])),
    CHECK (origin = ANY (ARRAY['default'::text, 'file'::text, 'cli'::text]))
);
COMMENT ON TABLE aliases IS 'one label of an address: a name, a kind, a logo, a verified flag. Written by the embedded default list, the operator''s label file and `starkgraph labels` (labels/, db/labels.go); tokens and validators take theirs when their row is made.';

CREATE INDEX aliases_name_prefix ON aliases (lower(name) text_pattern_ops);
COMMENT ON INDEX aliases_name_prefix IS 'search: curated names by prefix';

-- starknet_id_names: an address's main Starknet ID domain. Written by the indexer from the naming
-- contract's events (journaled).
CREATE TABLE starknet_id_names (
    address bytea NOT NULL,
    domain text NOT NULL,
    root text NOT NULL,
    block_number bigint NOT NULL,
    PRIMARY KEY (address)
);
COMMENT ON TABLE starknet_id_names IS 'an address''s main Starknet ID domain. Written by the indexer from the naming contract''s events (journaled).';

CREATE INDEX starknet_id_names_domain ON starknet_id_names (domain text_pattern_ops);
COMMENT ON INDEX starknet_id_names_domain IS 'search: Starknet ID domains by prefix';

-- starknet_id_domains: the expiry of a Starknet ID root domain. Written by the indexer (journaled).
CREATE TABLE starknet_id_domains (
    domain text NOT NULL,
    expiry bigint NOT NULL,
    PRIMARY KEY (domain)
);
COMMENT ON TABLE starknet_id_domains IS 'the expiry of a Starknet ID root domain. Written by the indexer (journaled).';

-- ============================================================================================
-- Tokens and balances
-- ERC-20, ERC-721 and ERC-1155 contracts, their transfers and balances. Transfers and balance
-- changes are per-block rows (COPY); balances and tokens are updated in place by the indexer
-- and journaled for reorgs.
-- ============================================================================================

-- A token's market cap is its supply in whole tokens times its price, whichever of the two
-- changed last; kept in the row so that tokens can be listed by it.
-- +goose StatementBegin
CREATE FUNCTION tokens_market_cap() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF NEW.usd_price IS NOT NULL AND NEW.total_supply IS NOT NULL AND NEW.decimals IS NOT NULL THEN
        NEW.market_cap_usd := (NEW.total_supply / 10::numeric ^ NEW.decimals * NEW.usd_price::numeric)::float8;
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

-- A new token takes its verified flag and logo from its label (aliases, kind 'token');
-- loading labels sets them on existing rows (db/labels.go).
-- +goose StatementBegin
CREATE FUNCTION tokens_take_labels() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
    a aliases%ROWTYPE;
BEGIN
    SELECT * INTO a FROM aliases WHERE address = NEW.address AND kind = 'token';
    IF FOUND THEN
        NEW.verified := a.verified;
        NEW.logo_url := a.logo_url;
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

-- tokens: one token contract (erc20, erc721, erc1155) with its metadata and counters. The indexer
-- writes its db.TokenRow columns (journaled); prices and market caps come from the figures
-- (write_figures.go), logos and verified flags from the labels (aliases, db/labels.go).
CREATE TABLE tokens (
    address bytea NOT NULL,
    standard text NOT NULL,
    name text,
    symbol text,
    decimals smallint,
    total_supply numeric(78,0),
    transfer_count bigint DEFAULT 0 NOT NULL,
    holder_count bigint DEFAULT 0 NOT NULL,
    verified boolean DEFAULT false NOT NULL,
    usd_price double precision,
    market_cap_usd double precision,
    logo_url text,
    first_block bigint,
    PRIMARY KEY (address)
);
COMMENT ON TABLE tokens IS 'one token contract (erc20, erc721, erc1155) with its metadata and counters. The indexer writes its db.TokenRow columns (journaled); prices and market caps come from the figures (write_figures.go), logos and verified flags from the labels (aliases, db/labels.go).';

CREATE INDEX tokens_by_holders ON tokens (standard, holder_count DESC, address);
COMMENT ON INDEX tokens_by_holders IS 'tokens of a standard by holder count';

CREATE INDEX tokens_by_market_cap ON tokens (standard, market_cap_usd DESC NULLS LAST, address);
COMMENT ON INDEX tokens_by_market_cap IS 'tokens of a standard by market cap';

CREATE INDEX tokens_by_transfers ON tokens (standard, transfer_count DESC, address);
COMMENT ON INDEX tokens_by_transfers IS 'tokens of a standard by transfer count';

CREATE INDEX tokens_name_prefix ON tokens (lower(name) text_pattern_ops);
COMMENT ON INDEX tokens_name_prefix IS 'search: tokens by name prefix';

CREATE INDEX tokens_symbol_prefix ON tokens (lower(symbol) text_pattern_ops);
COMMENT ON INDEX tokens_symbol_prefix IS 'search: tokens by symbol prefix';

CREATE TRIGGER tokens_market_cap BEFORE INSERT OR UPDATE OF usd_price, total_supply, decimals ON tokens FOR EACH ROW EXECUTE FUNCTION tokens_market_cap();

CREATE TRIGGER tokens_take_labels BEFORE INSERT ON tokens FOR EACH ROW EXECUTE FUNCTION tokens_take_labels();

-- token_transfers: one ERC-20 Transfer event (an ERC-721/1155 transfer is an nft_events row): token, sender
-- and receiver are felt ids; is_fee marks the fee a transaction paid. Written by the indexer.
CREATE TABLE token_transfers (
    block_number integer NOT NULL,
    tx_index integer NOT NULL,
    event_index integer NOT NULL,
    token_id integer NOT NULL,
    from_id integer NOT NULL,
    to_id integer NOT NULL,
    amount numeric(78,0) NOT NULL,
    is_fee boolean DEFAULT false NOT NULL,
    PRIMARY KEY (block_number, tx_index, event_index),
    FOREIGN KEY (block_number, tx_index) REFERENCES transactions(block_number, tx_index) ON DELETE CASCADE
) PARTITION BY RANGE (block_number);
COMMENT ON TABLE token_transfers IS 'one ERC-20 Transfer event (an ERC-721/1155 transfer is an nft_events row): token, sender and receiver are felt ids; is_fee marks the fee a transaction paid. Written by the indexer.';
COMMENT ON INDEX token_transfers_pkey IS 'a transaction''s transfers (read_transfers.go, by (block_number, tx_index)), the live feed by block, the cascade from transactions';

CREATE INDEX token_transfers_from ON token_transfers (from_id, block_number DESC, tx_index DESC, event_index DESC);
COMMENT ON INDEX token_transfers_from IS 'transfers of a wallet, the sending side, newest first (/beta/transfers, GraphQL transfers(filter: {wallet}))';

CREATE INDEX token_transfers_to ON token_transfers (to_id, block_number DESC, tx_index DESC, event_index DESC);
COMMENT ON INDEX token_transfers_to IS 'transfers of a wallet, the receiving side, newest first (/beta/transfers, GraphQL transfers(filter: {wallet}))';

CREATE INDEX token_transfers_token ON token_transfers (token_id, block_number DESC, tx_index DESC, event_index DESC);
COMMENT ON INDEX token_transfers_token IS 'transfers of a token, newest first (/beta/transfers?token=, GraphQL transfers(filter: {token}))';

-- The partition of the first blocks; the indexer makes the next ones (db/partitions.go).
CREATE TABLE token_transfers_0 PARTITION OF token_transfers FOR VALUES FROM (MINVALUE) TO (1000000);

-- token_transfers_named: token_transfers with their token, sender and receiver, for SQL written by hand.
CREATE VIEW token_transfers_named AS
SELECT e.block_number, e.tx_index, e.event_index, tk.felt AS token_address, f.felt AS from_address,
       t.felt AS to_address, e.amount, e.is_fee
FROM token_transfers e
JOIN felt_ids tk ON tk.id = e.token_id JOIN felt_ids f ON f.id = e.from_id JOIN felt_ids t ON t.id = e.to_id;
COMMENT ON VIEW token_transfers_named IS 'token_transfers with their token, sender and receiver, for SQL written by hand.';

-- events_named: events with their emitter, keys and data whole (a Transfer folded into its token_transfers row made again), for SQL written by hand.
CREATE VIEW events_named AS
SELECT e.block_number, e.tx_index, e.event_index, f.felt AS from_address, k.felt AS key0,
       CASE WHEN k.felt IS NULL THEN ''::bytea ELSE felt_packed(k.felt) END
         || CASE WHEN e.transfer_layout IS NULL THEN e.keys_tail
                 ELSE transfer_event_keys_tail(e.transfer_layout, xf.felt, xt.felt) END AS keys,
       CASE WHEN e.transfer_layout IS NULL THEN e.data
            ELSE transfer_event_data(e.transfer_layout, xf.felt, xt.felt, x.amount) END AS data
FROM events e
JOIN felt_ids f ON f.id = e.from_id
LEFT JOIN felt_ids k ON k.id = e.key0_id
LEFT JOIN token_transfers x ON e.transfer_layout IS NOT NULL
      AND x.block_number = e.block_number AND x.tx_index = e.tx_index AND x.event_index = e.event_index
LEFT JOIN felt_ids xf ON xf.id = x.from_id
LEFT JOIN felt_ids xt ON xt.id = x.to_id;
COMMENT ON VIEW events_named IS 'events with their emitter, keys and data whole (a Transfer folded into its token_transfers row made again), for SQL written by hand.';

-- erc20_balance_changes: a wallet's balance of an ERC-20 token after a block that changed it (token and
-- owner are felt ids): balances at a block and balance histories. Written by the indexer.
CREATE TABLE erc20_balance_changes (
    token_id integer NOT NULL,
    owner_id integer NOT NULL,
    block_number bigint NOT NULL,
    balance numeric(78,0) NOT NULL,
    PRIMARY KEY (token_id, owner_id, block_number),
    FOREIGN KEY (block_number) REFERENCES blocks(number) ON DELETE CASCADE
);
COMMENT ON TABLE erc20_balance_changes IS 'a wallet''s balance of an ERC-20 token after a block that changed it (token and owner are felt ids): balances at a block and balance histories. Written by the indexer.';
COMMENT ON INDEX erc20_balance_changes_pkey IS 'a wallet''s balance of a token at a block and its history (read_transfers.go BalancesAt, balance history)';

CREATE INDEX erc20_balance_changes_block ON erc20_balance_changes USING brin (block_number) WITH (autosummarize='on');
COMMENT ON INDEX erc20_balance_changes_block IS 'BRIN: the cascade from blocks on a reorg, the removal of a bulk load''s rows above the head';

-- erc20_balance_changes_named: erc20_balance_changes with their token and owner, for SQL written by hand.
CREATE VIEW erc20_balance_changes_named AS
SELECT tk.felt AS token_address, o.felt AS owner_address, c.block_number, c.balance
FROM erc20_balance_changes c JOIN felt_ids tk ON tk.id = c.token_id JOIN felt_ids o ON o.id = c.owner_id;
COMMENT ON VIEW erc20_balance_changes_named IS 'erc20_balance_changes with their token and owner, for SQL written by hand.';

-- See contracts_rank.
-- +goose StatementBegin
CREATE FUNCTION erc20_balances_rank() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE k bytea[]; v1 numeric[]; v2 bytea[]; d int[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(token_address), array_agg(balance), array_agg(owner_address), array_agg(1)
        INTO k, v1, v2, d FROM new_rows WHERE balance > 0;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(token_address), array_agg(balance), array_agg(owner_address), array_agg(-1)
        INTO k, v1, v2, d FROM old_rows WHERE balance > 0;
    ELSE
        SELECT array_agg(x.k), array_agg(x.v1), array_agg(x.v2), array_agg(x.d) INTO k, v1, v2, d FROM (
            SELECT token_address AS k, balance AS v1, owner_address AS v2, -1 AS d FROM old_rows WHERE balance > 0
            UNION ALL
            SELECT token_address, balance, owner_address, 1 FROM new_rows WHERE balance > 0) x;
    END IF;
    IF k IS NOT NULL THEN
        PERFORM rank_spans_add(1::smallint, k, v1, v2, d);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- erc20_balances: a wallet's current balance of an ERC-20 token. Written by the indexer, in place
-- (journaled).
CREATE TABLE erc20_balances (
    token_address bytea NOT NULL,
    owner_address bytea NOT NULL,
    balance numeric(78,0) NOT NULL,
    last_transfer_block bigint NOT NULL,
    last_transfer_time bigint NOT NULL,
    PRIMARY KEY (token_address, owner_address)
);
COMMENT ON TABLE erc20_balances IS 'a wallet''s current balance of an ERC-20 token. Written by the indexer, in place (journaled).';

CREATE INDEX erc20_balances_holders_order ON erc20_balances (token_address, balance DESC, owner_address DESC) WHERE (balance > (0)::numeric);
COMMENT ON INDEX erc20_balances_holders_order IS 'a token''s holders, largest balance first';

CREATE INDEX erc20_balances_owner ON erc20_balances (owner_address, token_address);
COMMENT ON INDEX erc20_balances_owner IS 'a wallet''s balances by owner, zero balances included';

CREATE INDEX erc20_balances_owner_order ON erc20_balances (owner_address, last_transfer_time DESC, token_address) WHERE (balance > (0)::numeric);
COMMENT ON INDEX erc20_balances_owner_order IS 'a wallet''s tokens, newest transfer first';

CREATE TRIGGER erc20_balances_rank_del AFTER DELETE ON erc20_balances REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION erc20_balances_rank();

CREATE TRIGGER erc20_balances_rank_ins AFTER INSERT ON erc20_balances REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION erc20_balances_rank();

CREATE TRIGGER erc20_balances_rank_upd AFTER UPDATE ON erc20_balances REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION erc20_balances_rank();

-- token_prices: one USD price reading of a token from the on-chain oracle at a block. Written by the
-- indexer (indexer/figures.go, write_figures.go); removed with its block on a reorg.
CREATE TABLE token_prices (
    token_address bytea NOT NULL,
    block_number bigint NOT NULL,
    pair text NOT NULL,
    price numeric(78,0) NOT NULL,
    decimals smallint NOT NULL,
    PRIMARY KEY (token_address, block_number),
    FOREIGN KEY (block_number) REFERENCES blocks(number) ON DELETE CASCADE
);
COMMENT ON TABLE token_prices IS 'one USD price reading of a token from the on-chain oracle at a block. Written by the indexer (indexer/figures.go, write_figures.go); removed with its block on a reorg.';

CREATE INDEX token_prices_block ON token_prices (block_number);
COMMENT ON INDEX token_prices_block IS 'the cascade from blocks on a reorg';

-- ============================================================================================
-- Contracts and classes
-- Declared classes and deployed contracts, updated in place by the indexer (journaled).
-- ============================================================================================

-- classes: one declared class, with its ABI and what it looks like (account, proxy, ERC standard).
-- Written by the indexer; a verification gives a class without an ABI the verified one
-- (db/verify_queue.go).
CREATE TABLE classes (
    hash bytea NOT NULL,
    kind text NOT NULL,
    cairo_version smallint NOT NULL,
    version text DEFAULT '0'::text NOT NULL,
    compiled_class_hash bytea,
    abi jsonb,
    is_account boolean DEFAULT false NOT NULL,
    is_proxy boolean DEFAULT false NOT NULL,
    erc_standard text,
    declared_block bigint,
    declared_tx_hash bytea,
    declared_at bigint,
    PRIMARY KEY (hash),
    FOREIGN KEY (declared_block) REFERENCES blocks(number) ON DELETE CASCADE
);
COMMENT ON TABLE classes IS 'one declared class, with its ABI and what it looks like (account, proxy, ERC standard). Written by the indexer; a verification gives a class without an ABI the verified one (db/verify_queue.go).';

CREATE INDEX classes_declared_order ON classes (COALESCE(declared_block, ('-1'::integer)::bigint) DESC, hash DESC);
COMMENT ON INDEX classes_declared_order IS 'classes, newest declared first';

-- contracts_rank, erc20_balances_rank, nft_holders_rank: the triggers of rank_spans (list 3, 1, 2), each
-- reading its statement's transition tables and counting the rows that moved.
-- +goose StatementBegin
CREATE FUNCTION contracts_rank() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE k bytea[]; v1 numeric[]; v2 bytea[]; d int[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(class_hash), array_agg(coalesce(deployed_block, -1)), array_agg(address), array_agg(1)
        INTO k, v1, v2, d FROM new_rows WHERE class_hash IS NOT NULL;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(class_hash), array_agg(coalesce(deployed_block, -1)), array_agg(address), array_agg(-1)
        INTO k, v1, v2, d FROM old_rows WHERE class_hash IS NOT NULL;
    ELSE
        -- Most updates of a contract leave its class and deployment as they were.
        SELECT array_agg(x.k), array_agg(x.v1), array_agg(x.v2), array_agg(x.d) INTO k, v1, v2, d FROM (
            SELECT o.class_hash AS k, coalesce(o.deployed_block, -1) AS v1, o.address AS v2, -1 AS d
            FROM old_rows o JOIN new_rows n ON n.address = o.address
            WHERE o.class_hash IS NOT NULL AND (n.class_hash, n.deployed_block) IS DISTINCT FROM (o.class_hash, o.deployed_block)
            UNION ALL
            SELECT n.class_hash, coalesce(n.deployed_block, -1), n.address, 1
            FROM new_rows n JOIN old_rows o ON o.address = n.address
            WHERE n.class_hash IS NOT NULL AND (n.class_hash, n.deployed_block) IS DISTINCT FROM (o.class_hash, o.deployed_block)) x;
    END IF;
    IF k IS NOT NULL THEN
        PERFORM rank_spans_add(3::smallint, k, v1, v2, d);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- contracts: one deployed contract: its class, type and nonce, where it was deployed. Written by the
-- indexer, in place (journaled); a class replacement updates class_hash.
CREATE TABLE contracts (
    address bytea NOT NULL,
    class_hash bytea NOT NULL,
    type text DEFAULT 'unknown'::text NOT NULL,
    nonce numeric(78,0) DEFAULT 0 NOT NULL,
    implementation_address bytea,
    deployed_block bigint,
    deployed_tx_hash bytea,
    deployed_at bigint,
    class_updated_block bigint,
    PRIMARY KEY (address),
    FOREIGN KEY (deployed_block) REFERENCES blocks(number) ON DELETE CASCADE
);
COMMENT ON TABLE contracts IS 'one deployed contract: its class, type and nonce, where it was deployed. Written by the indexer, in place (journaled); a class replacement updates class_hash.';

CREATE INDEX contracts_class_order ON contracts (class_hash, COALESCE(deployed_block, ('-1'::integer)::bigint) DESC, address DESC) INCLUDE (deployed_block);
COMMENT ON INDEX contracts_class_order IS 'contracts of a class, newest deployed first (its keys alone, index-only)';

CREATE INDEX contracts_deployed_order ON contracts (COALESCE(deployed_block, ('-1'::integer)::bigint) DESC, address DESC);
COMMENT ON INDEX contracts_deployed_order IS 'contracts, newest deployed first';

CREATE INDEX contracts_type_order ON contracts (type, COALESCE(deployed_block, ('-1'::integer)::bigint) DESC, address DESC);
COMMENT ON INDEX contracts_type_order IS 'contracts of a type, newest deployed first';

CREATE TRIGGER contracts_rank_del AFTER DELETE ON contracts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION contracts_rank();

CREATE TRIGGER contracts_rank_ins AFTER INSERT ON contracts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contracts_rank();

CREATE TRIGGER contracts_rank_upd AFTER UPDATE ON contracts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contracts_rank();

-- ============================================================================================
-- Staking
-- The staking contract, its validators and delegation pools, and the history derived from
-- their events (indexer/staking.go, indexer/staking_history.go). The tables updated in place are
-- journaled; the history rows go with their transaction on a reorg.
-- ============================================================================================

-- staking_overview: the one row of the staking contract's parameters and epoch, the minting curve and
-- the L1 total supply, as last read from the contracts. Written by the indexer
-- (indexer/figures.go, write_staking.go, write_figures.go), journaled.
CREATE TABLE staking_overview (
    id smallint DEFAULT 1 NOT NULL,
    staking_contract bytea,
    strk_token_address bytea,
    btc_token_address bytea,
    minimum_stake numeric(78,0) DEFAULT 0 NOT NULL,
    total_supply numeric(78,0) DEFAULT 0 NOT NULL,
    total_pending_unstake_strk numeric(78,0) DEFAULT 0 NOT NULL,
    total_pending_unstake_btc numeric(78,0) DEFAULT 0 NOT NULL,
    minting_curve double precision DEFAULT 0 NOT NULL,
    security_lockup_seconds bigint DEFAULT 0 NOT NULL,
    epoch_id bigint DEFAULT 0 NOT NULL,
    epoch_start_time bigint DEFAULT 0 NOT NULL,
    epoch_duration_seconds bigint DEFAULT 0 NOT NULL,
    updated_at bigint DEFAULT 0 NOT NULL,
    minting_curve_contract bytea,
    reward_supplier bytea,
    minting_c_denom integer DEFAULT 0 NOT NULL,
    epoch_starting_block bigint DEFAULT 0 NOT NULL,
    epoch_length_blocks integer DEFAULT 0 NOT NULL,
    figures_block bigint,
    PRIMARY KEY (id),
    CHECK (id = 1)
);
COMMENT ON TABLE staking_overview IS 'the one row of the staking contract''s parameters and epoch, the minting curve and the L1 total supply, as last read from the contracts. Written by the indexer (indexer/figures.go, write_staking.go, write_figures.go), journaled.';

-- A new validator takes its name, image and verified flag from its label (aliases, kind
-- 'validator').
-- +goose StatementBegin
CREATE FUNCTION validators_take_labels() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
    a aliases%ROWTYPE;
BEGIN
    SELECT * INTO a FROM aliases WHERE address = NEW.staker_address AND kind = 'validator';
    IF FOUND THEN
        NEW.name := a.name;
        NEW.image_url := a.logo_url;
        NEW.is_verified := a.verified;
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

-- validators: one validator (staker): its stake, commission, state and liveness. Written by the indexer
-- (journaled); its name, image and verified flag come from the labels (aliases).
CREATE TABLE validators (
    staker_address bytea NOT NULL,
    reward_address bytea,
    operational_address bytea,
    name text,
    image_url text,
    is_verified boolean DEFAULT false NOT NULL,
    self_stake numeric(78,0) DEFAULT 0 NOT NULL,
    delegated_stake_strk numeric(78,0) DEFAULT 0 NOT NULL,
    delegated_stake_btc numeric(78,0) DEFAULT 0 NOT NULL,
    revenue_share_bps integer DEFAULT 0 NOT NULL,
    state text DEFAULT 'active'::text NOT NULL,
    start_time bigint,
    unstake_time bigint,
    withdrawal_time bigint,
    total_delegators integer DEFAULT 0 NOT NULL,
    liveness_attested_epochs integer DEFAULT 0 NOT NULL,
    liveness_total_epochs integer DEFAULT 0 NOT NULL,
    liveness_last_epoch bigint,
    created_block bigint,
    PRIMARY KEY (staker_address),
    FOREIGN KEY (created_block) REFERENCES blocks(number) ON DELETE CASCADE
);
COMMENT ON TABLE validators IS 'one validator (staker): its stake, commission, state and liveness. Written by the indexer (journaled); its name, image and verified flag come from the labels (aliases).';

CREATE INDEX validators_by_stake ON validators (((self_stake + delegated_stake_strk)) DESC, staker_address);
COMMENT ON INDEX validators_by_stake IS 'validators, largest stake first';

CREATE TRIGGER validators_take_labels BEFORE INSERT ON validators FOR EACH ROW EXECUTE FUNCTION validators_take_labels();

-- pools: one delegation pool of a validator, for one token (STRK or a BTC wrapper). Written by the
-- indexer (journaled).
CREATE TABLE pools (
    pool_contract bytea NOT NULL,
    staker_address bytea NOT NULL,
    token_address bytea NOT NULL,
    total_delegated numeric(78,0) DEFAULT 0 NOT NULL,
    delegator_count integer DEFAULT 0 NOT NULL,
    created_block bigint,
    PRIMARY KEY (pool_contract),
    FOREIGN KEY (created_block) REFERENCES blocks(number) ON DELETE CASCADE,
    FOREIGN KEY (staker_address) REFERENCES validators(staker_address) ON DELETE CASCADE
);
COMMENT ON TABLE pools IS 'one delegation pool of a validator, for one token (STRK or a BTC wrapper). Written by the indexer (journaled).';

CREATE INDEX pools_staker ON pools (staker_address);
COMMENT ON INDEX pools_staker IS 'a validator''s delegation pools (read_staking.go)';

-- delegations: one delegator's position in a pool. Written by the indexer (journaled).
CREATE TABLE delegations (
    pool_contract bytea NOT NULL,
    delegator_address bytea NOT NULL,
    reward_address bytea,
    amount numeric(78,0) DEFAULT 0 NOT NULL,
    rewards_claimed numeric(78,0) DEFAULT 0 NOT NULL,
    rewards_unclaimed numeric(78,0) DEFAULT 0 NOT NULL,
    unpool_amount numeric(78,0) DEFAULT 0 NOT NULL,
    activated_at bigint,
    last_delegation_at bigint,
    unpool_time bigint,
    withdrawal_time bigint,
    status text DEFAULT 'active'::text NOT NULL,
    PRIMARY KEY (pool_contract, delegator_address),
    FOREIGN KEY (pool_contract) REFERENCES pools(pool_contract) ON DELETE CASCADE
);
COMMENT ON TABLE delegations IS 'one delegator''s position in a pool. Written by the indexer (journaled).';

CREATE INDEX delegations_delegator ON delegations (delegator_address);
COMMENT ON INDEX delegations_delegator IS 'a wallet''s delegations (read_staking.go)';

CREATE INDEX delegations_pool_amount ON delegations (pool_contract, amount DESC, delegator_address);
COMMENT ON INDEX delegations_pool_amount IS 'a pool''s delegators, largest first';

-- stake_points: a wallet's delegated stake of a token at the end of a UTC day on which it changed.
-- Written by the indexer (journaled).
CREATE TABLE stake_points (
    wallet_address bytea NOT NULL,
    day date NOT NULL,
    token_address bytea NOT NULL,
    change numeric(78,0) NOT NULL,
    total numeric(78,0) NOT NULL,
    block_number bigint NOT NULL,
    PRIMARY KEY (wallet_address, token_address, day)
);
COMMENT ON TABLE stake_points IS 'a wallet''s delegated stake of a token at the end of a UTC day on which it changed. Written by the indexer (journaled).';

-- validator_days: a validator's stake and delegators at the end of a UTC day that changed them; the row of
-- staker_address '\x' is the network's. Written by the indexer (journaled).
CREATE TABLE validator_days (
    staker_address bytea NOT NULL,
    day date NOT NULL,
    stake_strk numeric(78,0) NOT NULL,
    stake_btc numeric(78,0) NOT NULL,
    delegators integer NOT NULL,
    block_number bigint NOT NULL,
    PRIMARY KEY (staker_address, day)
);
COMMENT ON TABLE validator_days IS 'a validator''s stake and delegators at the end of a UTC day that changed them; the row of staker_address ''\x'' is the network''s. Written by the indexer (journaled).';

-- staking_activity: one staking operation (stake, delegation, exit, claim, ...) of a wallet with a
-- validator. Written by the indexer (per-block rows).
CREATE TABLE staking_activity (
    block_number bigint NOT NULL,
    tx_index integer NOT NULL,
    event_index integer NOT NULL,
    operation text NOT NULL,
    wallet_address bytea NOT NULL,
    staker_address bytea NOT NULL,
    pool_contract bytea,
    token_address bytea,
    amount numeric(78,0),
    transaction_hash bytea NOT NULL,
    "timestamp" bigint NOT NULL,
    PRIMARY KEY (block_number, tx_index, event_index),
    FOREIGN KEY (block_number, tx_index) REFERENCES transactions(block_number, tx_index) ON DELETE CASCADE
);
COMMENT ON TABLE staking_activity IS 'one staking operation (stake, delegation, exit, claim, ...) of a wallet with a validator. Written by the indexer (per-block rows).';
COMMENT ON INDEX staking_activity_pkey IS 'a transaction''s staking operations, the cascade from transactions';

CREATE INDEX staking_activity_staker ON staking_activity (staker_address, block_number DESC, tx_index DESC, event_index DESC);
COMMENT ON INDEX staking_activity_staker IS 'a validator''s staking history, newest first';

CREATE INDEX staking_activity_wallet ON staking_activity (wallet_address, block_number DESC, tx_index DESC, event_index DESC);
COMMENT ON INDEX staking_activity_wallet IS 'a wallet''s staking history, newest first';

-- attestations: one StakerAttestationSuccessful event of a validator. Written by the indexer (per-block
-- rows).
CREATE TABLE attestations (
    block_number bigint NOT NULL,
    tx_index integer NOT NULL,
    event_index integer NOT NULL,
    staker_address bytea NOT NULL,
    epoch bigint NOT NULL,
    transaction_hash bytea NOT NULL,
    "timestamp" bigint NOT NULL,
    PRIMARY KEY (block_number, tx_index, event_index),
    FOREIGN KEY (block_number, tx_index) REFERENCES transactions(block_number, tx_index) ON DELETE CASCADE
);
COMMENT ON TABLE attestations IS 'one StakerAttestationSuccessful event of a validator. Written by the indexer (per-block rows).';
COMMENT ON INDEX attestations_pkey IS 'a transaction''s attestations, the cascade from transactions';

CREATE INDEX attestations_staker ON attestations (staker_address, block_number DESC, tx_index DESC, event_index DESC);
COMMENT ON INDEX attestations_staker IS 'a validator''s attestations, newest first';

-- isqrt is the integer square root (floor), as the minting curve computes it. numeric sqrt
-- keeps about 16 significant digits, too few for 10^50-sized products: one Newton step
-- from it is exact to within one, which the last step corrects. Divisions are div(), the
-- exact integer quotient: numeric "/" rounds large quotients to a few digits.
-- +goose StatementBegin
CREATE FUNCTION isqrt(n numeric) RETURNS numeric
    LANGUAGE sql IMMUTABLE STRICT
    AS $$SELECT CASE WHEN n < 1 THEN 0 WHEN s * s > n THEN s - 1 WHEN (s + 1) * (s + 1) <= n THEN s + 1 ELSE s END
     FROM (SELECT CASE WHEN n < 1 THEN 0 ELSE div(s0 + div(n, s0), 2) END AS s
           FROM (SELECT greatest(trunc(sqrt(n)), 1) AS s0) a) b$$;
-- +goose StatementEnd

-- staking_economy: what follows from the staking overview and the stakes: the yearly mint of the minting
-- curve (c_num * sqrt(total STRK stake * L1 total supply) / c_denom), the BTC share of the
-- rewards and the base APR of STRK stake, in percent.
CREATE VIEW staking_economy AS
WITH o AS (SELECT * FROM staking_overview WHERE id = 1),
t AS (SELECT coalesce(sum(self_stake + delegated_stake_strk), 0) AS strk,
             coalesce(sum(delegated_stake_btc), 0) AS btc
      FROM validators WHERE state = 'active'),
y AS (SELECT t.strk, t.btc,
             CASE WHEN o.minting_c_denom > 0 AND t.strk > 0 AND o.total_supply > 0
                  THEN div(o.minting_curve::numeric * isqrt(t.strk * o.total_supply), o.minting_c_denom)
             END AS yearly_mint,
             -- Staking v2 gives BTC stake a quarter of the rewards once there is any.
             CASE WHEN t.btc > 0 THEN 0.25 ELSE 0 END AS btc_share
      FROM t LEFT JOIN o ON true)
SELECT strk AS total_stake_strk, btc AS total_stake_btc, yearly_mint, btc_share,
       CASE WHEN strk > 0 THEN 100 * (1 - btc_share) * yearly_mint / strk END AS base_apr_strk
FROM y;
COMMENT ON VIEW staking_economy IS 'what follows from the staking overview and the stakes: the yearly mint of the minting curve (c_num * sqrt(total STRK stake * L1 total supply) / c_denom), the BTC share of the rewards and the base APR of STRK stake, in percent.';

-- validator_economics: each validator's rank by stake and its APRs, from staking_economy.
CREATE VIEW validator_economics AS
SELECT v.staker_address,
       row_number() OVER (ORDER BY v.self_stake + v.delegated_stake_strk DESC, v.staker_address) AS rank,
       -- Own stake earns the base APR, plus the commission on what the pools earn.
       CASE WHEN v.self_stake > 0 AND e.base_apr_strk IS NOT NULL THEN
            e.base_apr_strk * (v.self_stake + v.revenue_share_bps / 10000.0 * v.delegated_stake_strk) / v.self_stake
            + CASE WHEN e.total_stake_btc > 0 THEN 100 * e.btc_share * e.yearly_mint * v.delegated_stake_btc
                   / e.total_stake_btc * v.revenue_share_bps / 10000.0 / v.self_stake ELSE 0 END
       END AS apr,
       e.base_apr_strk * (1 - v.revenue_share_bps / 10000.0) AS pool_apr_strk
FROM validators v CROSS JOIN staking_economy e;
COMMENT ON VIEW validator_economics IS 'each validator''s rank by stake and its APRs, from staking_economy.';

-- staking_figures: the one row of staking_economy's figures and the averages over validators, kept so
-- that requests read a row. Written by refresh_staking_figures(), which the indexer calls
-- after every batch and after a reorg is undone.
CREATE TABLE staking_figures (
    id smallint DEFAULT 1 NOT NULL,
    total_stake_strk numeric NOT NULL,
    total_stake_btc numeric NOT NULL,
    yearly_mint numeric,
    btc_share numeric NOT NULL,
    base_apr_strk numeric,
    average_commission double precision DEFAULT 0 NOT NULL,
    max_apr_strk double precision,
    min_btc_commission_bps integer,
    mean_block_seconds double precision,
    PRIMARY KEY (id),
    CHECK (id = 1)
);
COMMENT ON TABLE staking_figures IS 'the one row of staking_economy''s figures and the averages over validators, kept so that requests read a row. Written by refresh_staking_figures(), which the indexer calls after every batch and after a reorg is undone.';

-- validator_figures: one validator's rank and APRs from validator_economics. Written by
-- refresh_staking_figures().
CREATE TABLE validator_figures (
    staker_address bytea NOT NULL,
    rank bigint NOT NULL,
    apr numeric,
    pool_apr_strk numeric,
    PRIMARY KEY (staker_address)
);
COMMENT ON TABLE validator_figures IS 'one validator''s rank and APRs from validator_economics. Written by refresh_staking_figures().';

-- refresh_staking_figures writes staking_economy and validator_economics into staking_figures
-- and validator_figures; the indexer calls it with refresh_chain_stats().
-- +goose StatementBegin
CREATE FUNCTION refresh_staking_figures() RETURNS void
    LANGUAGE sql
    AS $$
INSERT INTO staking_figures (id, total_stake_strk, total_stake_btc, yearly_mint, btc_share, base_apr_strk)
SELECT 1, total_stake_strk, total_stake_btc, yearly_mint, btc_share, base_apr_strk FROM staking_economy
ON CONFLICT (id) DO UPDATE SET total_stake_strk = EXCLUDED.total_stake_strk,
    total_stake_btc = EXCLUDED.total_stake_btc, yearly_mint = EXCLUDED.yearly_mint,
    btc_share = EXCLUDED.btc_share, base_apr_strk = EXCLUDED.base_apr_strk;
DELETE FROM validator_figures f WHERE NOT EXISTS (SELECT 1 FROM validators v WHERE v.staker_address = f.staker_address);
-- Only rows whose figures moved are written: most batches change no stake.
INSERT INTO validator_figures (staker_address, rank, apr, pool_apr_strk)
SELECT staker_address, rank, apr, pool_apr_strk FROM validator_economics
ON CONFLICT (staker_address) DO UPDATE SET rank = EXCLUDED.rank, apr = EXCLUDED.apr, pool_apr_strk = EXCLUDED.pool_apr_strk
WHERE (validator_figures.rank, validator_figures.apr, validator_figures.pool_apr_strk)
    IS DISTINCT FROM (EXCLUDED.rank, EXCLUDED.apr, EXCLUDED.pool_apr_strk);
UPDATE staking_figures SET
    average_commission = (SELECT coalesce(sum(revenue_share_bps * (self_stake + delegated_stake_strk))
            / nullif(sum(self_stake + delegated_stake_strk), 0), 0) / 100.0
        FROM validators WHERE state = 'active')::float8,
    max_apr_strk = (SELECT max(x.pool_apr_strk) FROM validator_figures x JOIN validators v USING (staker_address)
        WHERE v.state = 'active')::float8,
    min_btc_commission_bps = (SELECT min(v.revenue_share_bps) FROM validators v JOIN pools p ON p.staker_address = v.staker_address
        WHERE v.state = 'active' AND p.token_address <> coalesce((SELECT strk_token_address FROM staking_overview WHERE id = 1), ''::bytea)),
    mean_block_seconds = (SELECT (max(timestamp) - min(timestamp))::float8 / nullif(count(*) - 1, 0)
        FROM (SELECT timestamp FROM blocks ORDER BY number DESC LIMIT 100) b)
WHERE id = 1;
$$;
-- +goose StatementEnd

-- ============================================================================================
-- NFTs
-- ERC-721 and ERC-1155 items, balances, holders and transfers (indexer), and the metadata
-- fetcher's queue (nftmeta).
-- ============================================================================================

-- nft_items: one NFT item (collection, token id): its owner (ERC-721), its metadata and its mint.
-- Written by the indexer (journaled); the metadata by the metadata fetcher
-- (db/nft_metadata.go).
CREATE TABLE nft_items (
    contract_address bytea NOT NULL,
    token_id numeric(78,0) NOT NULL,
    contract_type smallint NOT NULL,
    owner_address bytea,
    name text,
    description text,
    external_url text,
    image_url text,
    image_small_url text,
    image_large_url text,
    youtube_url text,
    animation_url text,
    attributes jsonb DEFAULT '[]'::jsonb NOT NULL,
    token_uri text,
    minted_by_address bytea,
    minted_at_block bigint,
    minted_at_tx_hash bytea,
    minted_at_timestamp bigint,
    PRIMARY KEY (contract_address, token_id)
);
COMMENT ON TABLE nft_items IS 'one NFT item (collection, token id): its owner (ERC-721), its metadata and its mint. Written by the indexer (journaled); the metadata by the metadata fetcher (db/nft_metadata.go).';

CREATE INDEX nft_items_owner ON nft_items (owner_address, contract_address, token_id);
COMMENT ON INDEX nft_items_owner IS 'a wallet''s NFT items';

-- nft_balances: what a wallet holds of one NFT item. Written by the indexer (journaled).
CREATE TABLE nft_balances (
    contract_address bytea NOT NULL,
    token_id numeric(78,0) NOT NULL,
    owner_address bytea NOT NULL,
    balance numeric(78,0) NOT NULL,
    last_transfer_time bigint NOT NULL,
    PRIMARY KEY (contract_address, token_id, owner_address)
);
COMMENT ON TABLE nft_balances IS 'what a wallet holds of one NFT item. Written by the indexer (journaled).';

CREATE INDEX nft_balances_item_order ON nft_balances (contract_address, token_id, balance DESC, owner_address DESC) WHERE (balance > (0)::numeric);
COMMENT ON INDEX nft_balances_item_order IS 'an NFT item''s holders, largest balance first';

CREATE INDEX nft_balances_owner ON nft_balances (owner_address, contract_address, token_id) WHERE (balance > (0)::numeric);
COMMENT ON INDEX nft_balances_owner IS 'a wallet''s NFT balances';

-- See contracts_rank.
-- +goose StatementBegin
CREATE FUNCTION nft_holders_rank() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE k bytea[]; v1 numeric[]; v2 bytea[]; d int[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(contract_address), array_agg(held), array_agg(owner_address), array_agg(1)
        INTO k, v1, v2, d FROM new_rows;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(contract_address), array_agg(held), array_agg(owner_address), array_agg(-1)
        INTO k, v1, v2, d FROM old_rows;
    ELSE
        SELECT array_agg(x.k), array_agg(x.v1), array_agg(x.v2), array_agg(x.d) INTO k, v1, v2, d FROM (
            SELECT contract_address AS k, held AS v1, owner_address AS v2, -1 AS d FROM old_rows
            UNION ALL
            SELECT contract_address, held, owner_address, 1 FROM new_rows) x;
    END IF;
    IF k IS NOT NULL THEN
        PERFORM rank_spans_add(2::smallint, k, v1, v2, d);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- nft_holders: what a wallet holds of one collection in all, from nft_balances, so that a collection's
-- holders are an index scan. Written by the indexer for the pairs each batch touches
-- (journaled).
CREATE TABLE nft_holders (
    contract_address bytea NOT NULL,
    owner_address bytea NOT NULL,
    token_id numeric(78,0) NOT NULL,
    held numeric(78,0) NOT NULL,
    last_transfer_time bigint NOT NULL,
    PRIMARY KEY (contract_address, owner_address),
    CHECK (held > (0)::numeric)
);
COMMENT ON TABLE nft_holders IS 'what a wallet holds of one collection in all, from nft_balances, so that a collection''s holders are an index scan. Written by the indexer for the pairs each batch touches (journaled).';

CREATE INDEX nft_holders_order ON nft_holders (contract_address, held DESC, owner_address DESC);
COMMENT ON INDEX nft_holders_order IS 'a collection''s holders, most held first';

CREATE TRIGGER nft_holders_rank_del AFTER DELETE ON nft_holders REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION nft_holders_rank();

CREATE TRIGGER nft_holders_rank_ins AFTER INSERT ON nft_holders REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nft_holders_rank();

CREATE TRIGGER nft_holders_rank_upd AFTER UPDATE ON nft_holders REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nft_holders_rank();

-- nft_events: one NFT transfer, mint or burn (sub_index numbers those of one ERC-1155 batch event), with
-- the sale that paid for it when there was one. Written by the indexer (per-block rows).
CREATE TABLE nft_events (
    block_number bigint NOT NULL,
    tx_index integer NOT NULL,
    event_index integer NOT NULL,
    sub_index integer DEFAULT 0 NOT NULL,
    contract_address bytea NOT NULL,
    token_id numeric(78,0) NOT NULL,
    from_address bytea NOT NULL,
    to_address bytea NOT NULL,
    quantity numeric(78,0) DEFAULT 1 NOT NULL,
    type text NOT NULL,
    transaction_hash bytea NOT NULL,
    "timestamp" bigint NOT NULL,
    payment_token_address bytea,
    payment_token_symbol text,
    total_price numeric(78,0),
    marketplace_contract_address bytea,
    PRIMARY KEY (block_number, tx_index, event_index, sub_index),
    FOREIGN KEY (block_number, tx_index) REFERENCES transactions(block_number, tx_index) ON DELETE CASCADE
);
COMMENT ON TABLE nft_events IS 'one NFT transfer, mint or burn (sub_index numbers those of one ERC-1155 batch event), with the sale that paid for it when there was one. Written by the indexer (per-block rows).';
COMMENT ON INDEX nft_events_pkey IS 'a transaction''s NFT transfers, the cascade from transactions';

CREATE INDEX nft_events_contract ON nft_events (contract_address, block_number DESC, tx_index DESC, event_index DESC, sub_index DESC);
COMMENT ON INDEX nft_events_contract IS 'NFT transfers of a collection, newest first';

CREATE INDEX nft_events_sales ON nft_events ("timestamp") INCLUDE (contract_address, marketplace_contract_address) WHERE (total_price IS NOT NULL);
COMMENT ON INDEX nft_events_sales IS 'NFT sales in a time window (marketplace figures), index-only';

CREATE INDEX nft_events_token ON nft_events (contract_address, token_id, block_number DESC);
COMMENT ON INDEX nft_events_token IS 'transfers of one NFT item, newest first';

-- nft_metadata_requests: one NFT item whose metadata was asked to be refreshed (POST
-- /beta/nft/update-metadata/...): queued by the API, claimed for a while and finished by the
-- metadata fetcher (nftmeta, db/nft_metadata.go). The row stays once done: the API's per-token
-- limit reads requested_at.
CREATE TABLE nft_metadata_requests (
    contract_address bytea NOT NULL,
    token_id numeric(78,0) NOT NULL,
    requested_at timestamp with time zone DEFAULT now() NOT NULL,
    state text DEFAULT 'queued'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    error text,
    finished_at timestamp with time zone,
    claimed_at timestamp with time zone,
    PRIMARY KEY (contract_address, token_id),
    CHECK (state = ANY (ARRAY['queued'::text, 'fetching'::text, 'done'::text, 'failed'::text]))
);
COMMENT ON TABLE nft_metadata_requests IS 'one NFT item whose metadata was asked to be refreshed (POST /beta/nft/update-metadata/...): queued by the API, claimed for a while and finished by the metadata fetcher (nftmeta, db/nft_metadata.go). The row stays once done: the API''s per-token limit reads requested_at.';

CREATE INDEX nft_metadata_requests_claimed ON nft_metadata_requests (claimed_at) WHERE (state = 'fetching'::text);
COMMENT ON INDEX nft_metadata_requests_claimed IS 'NFT metadata claims left stale, to hand out again';

CREATE INDEX nft_metadata_requests_queued ON nft_metadata_requests (requested_at) WHERE (state = 'queued'::text);
COMMENT ON INDEX nft_metadata_requests_queued IS 'the NFT metadata queue, oldest request first';

-- ============================================================================================
-- API keys and plans
-- Access to the API (auth/): plans, keys and their usage; and the secrets the replicas
-- share.
-- ============================================================================================

-- plans: one plan: rate, burst, quotas, operations allowed, subscriptions. Seeded below (free, pro,
-- dev); operators edit them by SQL; read by auth.
CREATE TABLE plans (
    name text NOT NULL,
    rate_per_second double precision NOT NULL,
    burst integer NOT NULL,
    daily_quota bigint,
    monthly_quota bigint,
    allowed_operations text[],
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    max_subscriptions integer DEFAULT 100 NOT NULL,
    PRIMARY KEY (name),
    CHECK (burst >= 1),
    CHECK ((daily_quota IS NULL) OR (daily_quota > 0)),
    CHECK (max_subscriptions >= 0),
    CHECK ((monthly_quota IS NULL) OR (monthly_quota > 0)),
    CHECK (name <> ''::text),
    CHECK (rate_per_second > (0)::double precision)
);
COMMENT ON TABLE plans IS 'one plan: rate, burst, quotas, operations allowed, subscriptions. Seeded below (free, pro, dev); operators edit them by SQL; read by auth.';

-- api_keys: one API key (its SHA-256 hash, never the key) on a plan. Written by `starkgraph keys`
-- and `dev` (auth/store.go).
CREATE TABLE api_keys (
    id bigint NOT NULL GENERATED ALWAYS AS IDENTITY,
    key_hash bytea NOT NULL,
    key_prefix text NOT NULL,
    label text DEFAULT ''::text NOT NULL,
    plan text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_at timestamp with time zone,
    PRIMARY KEY (id),
    UNIQUE (key_hash),
    CHECK (octet_length(key_hash) = 32),
    FOREIGN KEY (plan) REFERENCES plans(name) ON UPDATE CASCADE
);
COMMENT ON TABLE api_keys IS 'one API key (its SHA-256 hash, never the key) on a plan. Written by `starkgraph keys` and `dev` (auth/store.go).';

CREATE INDEX api_keys_key_prefix_idx ON api_keys (key_prefix);
COMMENT ON INDEX api_keys_key_prefix_idx IS 'an API key by its prefix (admin look-up, auth/store.go)';

-- api_key_usage: a key's request counts for one UTC day. Written by auth (auth/store.go) as requests are
-- served.
CREATE TABLE api_key_usage (
    key_id bigint NOT NULL,
    day date NOT NULL,
    requests bigint DEFAULT 0 NOT NULL,
    client_errors bigint DEFAULT 0 NOT NULL,
    rate_limited bigint DEFAULT 0 NOT NULL,
    PRIMARY KEY (key_id, day),
    FOREIGN KEY (key_id) REFERENCES api_keys(id) ON DELETE CASCADE
);
COMMENT ON TABLE api_key_usage IS 'a key''s request counts for one UTC day. Written by auth (auth/store.go) as requests are served.';

-- server_secrets: one secret the API replicas share, generated at first start: 'cursor' keys the HMAC of
-- the opaque cursors (cursor/cursor.go) unless --cursor-secret gives one.
CREATE TABLE server_secrets (
    name text NOT NULL,
    value bytea NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    PRIMARY KEY (name)
);
COMMENT ON TABLE server_secrets IS 'one secret the API replicas share, generated at first start: ''cursor'' keys the HMAC of the opaque cursors (cursor/cursor.go) unless --cursor-secret gives one.';

-- ============================================================================================
-- Class verification
-- The verification queue and its results (verify/, db/verify_queue.go): workers claim jobs
-- with FOR UPDATE SKIP LOCKED and hold a lease that they renew while compiling.
-- ============================================================================================

-- verification_jobs: one request to verify a class from its sources. Written by the API (submission)
-- and the verification workers (claims, status, output).
CREATE TABLE verification_jobs (
    id uuid NOT NULL,
    class_hash bytea NOT NULL,
    status smallint DEFAULT 0 NOT NULL,
    name text,
    compiler_version text,
    scarb_version text,
    dojo_version text,
    project_dir_path text,
    package_name text,
    license text,
    contract_file text,
    build_tool text,
    files jsonb NOT NULL,
    message text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    lease_token uuid,
    lease_until timestamp with time zone,
    worker text,
    attempts integer DEFAULT 0 NOT NULL,
    obtained_class_hash bytea,
    compiler_output text,
    finished_at timestamp with time zone,
    PRIMARY KEY (id)
);
COMMENT ON TABLE verification_jobs IS 'one request to verify a class from its sources. Written by the API (submission) and the verification workers (claims, status, output).';

CREATE INDEX verification_jobs_queue ON verification_jobs (created_at) WHERE (status = ANY (ARRAY[0, 1, 5]));
COMMENT ON INDEX verification_jobs_queue IS 'the verification queue, oldest job first';

-- verification_job_log: one status change of a verification job, by which worker. Written by the
-- workers.
CREATE TABLE verification_job_log (
    job_id uuid NOT NULL,
    status smallint NOT NULL,
    worker text NOT NULL,
    at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    FOREIGN KEY (job_id) REFERENCES verification_jobs(id) ON DELETE CASCADE
);
COMMENT ON TABLE verification_job_log IS 'one status change of a verification job, by which worker. Written by the workers.';

CREATE INDEX verification_job_log_job ON verification_job_log (job_id, at);
COMMENT ON INDEX verification_job_log_job IS 'a verification job''s log in time order';

-- verified_classes: one class whose sources were verified to compile to it, with the sources. Written by
-- the verification workers.
CREATE TABLE verified_classes (
    class_hash bytea NOT NULL,
    name text NOT NULL,
    verified_at bigint NOT NULL,
    compiler_version text,
    scarb_version text,
    license text,
    package_name text,
    contract_file text,
    files jsonb,
    build_tool text,
    project_dir_path text,
    file_paths text[] DEFAULT '{}'::text[] NOT NULL,
    abi jsonb,
    job_id uuid,
    PRIMARY KEY (class_hash)
);
COMMENT ON TABLE verified_classes IS 'one class whose sources were verified to compile to it, with the sources. Written by the verification workers.';

CREATE INDEX verified_classes_at ON verified_classes (verified_at DESC, class_hash);
COMMENT ON INDEX verified_classes_at IS 'verified classes, newest first';

-- ============================================================================================
-- Figures and analytics
-- Aggregates kept as rows so that requests read them instead of recomputing them.
-- ============================================================================================

-- list_counts: the exact total of a list or statistic ('blocks', 'transactions', 'contracts:<type>',
-- 'tokens:<standard>', 'verified_classes', ...), so that lastPage and totalCount never count a
-- large table. Written by the indexer in the block's transaction (journaled) and by the
-- verification workers.
CREATE TABLE list_counts (
    name text NOT NULL,
    count bigint DEFAULT 0 NOT NULL,
    PRIMARY KEY (name)
);
COMMENT ON TABLE list_counts IS 'the exact total of a list or statistic (''blocks'', ''transactions'', ''contracts:<type>'', ''tokens:<standard>'', ''verified_classes'', ...), so that lastPage and totalCount never count a large table. Written by the indexer in the block''s transaction (journaled) and by the verification workers.';

-- chain_stats: the one row of the figures of /beta/stats and networkStats (tps, fees, active and new
-- accounts, TVL). Written by the indexer (max tps, journaled) and refresh_chain_stats().
CREATE TABLE chain_stats (
    id smallint DEFAULT 1 NOT NULL,
    max_tps double precision DEFAULT 0 NOT NULL,
    max_tps_block_hash bytea,
    tvl_usd double precision,
    recent_txs bigint DEFAULT 0 NOT NULL,
    recent_seconds bigint DEFAULT 0 NOT NULL,
    avg_fee_wei numeric(78,0),
    avg_fee_fri numeric(78,0),
    active_accounts bigint DEFAULT 0 NOT NULL,
    new_accounts bigint DEFAULT 0 NOT NULL,
    new_accounts_previous bigint DEFAULT 0 NOT NULL,
    PRIMARY KEY (id),
    CHECK (id = 1)
);
COMMENT ON TABLE chain_stats IS 'the one row of the figures of /beta/stats and networkStats (tps, fees, active and new accounts, TVL). Written by the indexer (max tps, journaled) and refresh_chain_stats().';

-- activity_stats: the chain's activity in one UTC day ('d') or hour ('h'): blocks, transactions by
-- type, events, messages, transfers, fees. Written by the indexer, adding each batch's counts
-- (journaled).
CREATE TABLE activity_stats (
    granularity text NOT NULL,
    starts_at bigint NOT NULL,
    blocks bigint DEFAULT 0 NOT NULL,
    transactions bigint DEFAULT 0 NOT NULL,
    invokes bigint DEFAULT 0 NOT NULL,
    declares bigint DEFAULT 0 NOT NULL,
    deploy_accounts bigint DEFAULT 0 NOT NULL,
    l1_handlers bigint DEFAULT 0 NOT NULL,
    reverted bigint DEFAULT 0 NOT NULL,
    events bigint DEFAULT 0 NOT NULL,
    messages_to_l1 bigint DEFAULT 0 NOT NULL,
    token_transfers bigint DEFAULT 0 NOT NULL,
    fees_wei numeric(78,0) DEFAULT 0 NOT NULL,
    fees_fri numeric(78,0) DEFAULT 0 NOT NULL,
    PRIMARY KEY (granularity, starts_at),
    CHECK (granularity = ANY (ARRAY['d'::text, 'h'::text]))
);
COMMENT ON TABLE activity_stats IS 'the chain''s activity in one UTC day (''d'') or hour (''h''): blocks, transactions by type, events, messages, transfers, fees. Written by the indexer, adding each batch''s counts (journaled).';

-- sender_last_blocks: a sender's newest block. Written by the indexer (journaled); feeds
-- active_sender_blocks.
CREATE TABLE sender_last_blocks (
    sender_address bytea NOT NULL,
    block_number bigint NOT NULL,
    PRIMARY KEY (sender_address)
);
COMMENT ON TABLE sender_last_blocks IS 'a sender''s newest block. Written by the indexer (journaled); feeds active_sender_blocks.';

-- active_sender_blocks: how many senders have this block as their newest: the distinct senders since
-- block B are the sum from B on. Written by the indexer (journaled).
CREATE TABLE active_sender_blocks (
    block_number bigint NOT NULL,
    senders integer NOT NULL,
    PRIMARY KEY (block_number),
    CHECK (senders > 0),
    FOREIGN KEY (block_number) REFERENCES blocks(number) ON DELETE CASCADE
);
COMMENT ON TABLE active_sender_blocks IS 'how many senders have this block as their newest: the distinct senders since block B are the sum from B on. Written by the indexer (journaled).';

-- refresh_chain_stats computes the figures of chain_stats that depend on recent blocks (tps,
-- mean fees, active and new accounts, TVL); the indexer calls it in the transaction that
-- writes each batch of blocks and after a reorg is undone.
-- +goose StatementBegin
CREATE FUNCTION refresh_chain_stats() RETURNS void
    LANGUAGE sql
    AS $$
WITH recent AS (
    SELECT number, timestamp, tx_count, fees_wei, fee_txs_wei, fees_fri, fee_txs_fri
    FROM blocks ORDER BY number DESC LIMIT 100),
window_sums AS (
    SELECT coalesce(sum(tx_count) - (SELECT tx_count FROM recent ORDER BY number LIMIT 1), 0) AS txs,
        coalesce(max(timestamp) - min(timestamp), 0) AS seconds,
        round(sum(fees_wei) / nullif(sum(fee_txs_wei), 0)) AS avg_wei,
        round(sum(fees_fri) / nullif(sum(fee_txs_fri), 0)) AS avg_fri
    FROM recent),
head AS (SELECT max(timestamp) AS ts FROM blocks),
bounds AS (
    SELECT (SELECT min(number) FROM blocks, head WHERE timestamp > head.ts - 86400) AS cur_from,
        (SELECT min(number) FROM blocks, head WHERE timestamp > head.ts - 2 * 86400) AS prev_from),
active AS (
    SELECT coalesce(sum(a.senders), 0) AS n FROM active_sender_blocks a, bounds b WHERE a.block_number >= b.cur_from),
new_accounts AS (
    -- coalesce(deployed_block, -1) is the expression of the contracts_type_order index.
    SELECT (SELECT count(*) FROM contracts c, bounds b
                WHERE c.type = 'account' AND coalesce(c.deployed_block, -1) >= b.cur_from) AS cur,
        (SELECT count(*) FROM contracts c, bounds b WHERE c.type = 'account'
                AND coalesce(c.deployed_block, -1) >= b.prev_from AND coalesce(c.deployed_block, -1) < b.cur_from) AS prev),
tvl AS (
    -- Read by owner: an OR of the staking contract and the pools would scan every balance.
    SELECT sum(b.balance / 10::numeric ^ t.decimals * t.usd_price::numeric)::float8 AS usd
    FROM (SELECT staking_contract AS owner FROM staking_overview WHERE id = 1
          UNION SELECT pool_contract FROM pools) o
    JOIN erc20_balances b ON b.owner_address = o.owner
    JOIN tokens t ON t.address = b.token_address
    WHERE t.usd_price IS NOT NULL AND t.decimals IS NOT NULL AND b.balance > 0)
UPDATE chain_stats SET recent_txs = w.txs, recent_seconds = w.seconds,
    avg_fee_wei = w.avg_wei, avg_fee_fri = w.avg_fri, active_accounts = a.n,
    new_accounts = na.cur, new_accounts_previous = na.prev, tvl_usd = tvl.usd
FROM window_sums w, active a, new_accounts na, tvl
WHERE chain_stats.id = 1
$$;
-- +goose StatementEnd

-- holders_snapshots: a holders-analytics snapshot of a verified ERC-20 token; the newest row per token is
-- served. Written by the analytics job (analytics/holders.go).
CREATE TABLE holders_snapshots (
    token_address bytea NOT NULL,
    computed_at timestamp with time zone NOT NULL,
    total_supply numeric(78,0) NOT NULL,
    burned_supply numeric(78,0) NOT NULL,
    circulating_supply numeric(78,0) NOT NULL,
    holder_count bigint NOT NULL,
    holders_over_1pct integer NOT NULL,
    top_n_concentration jsonb NOT NULL,
    concentration_buckets jsonb NOT NULL,
    tier_distribution jsonb NOT NULL,
    wallet_depth_usd jsonb,
    gini_top_10k double precision NOT NULL,
    token_usd_price double precision,
    is_stale boolean DEFAULT false NOT NULL,
    is_recomputing boolean DEFAULT false NOT NULL,
    PRIMARY KEY (token_address, computed_at)
);
COMMENT ON TABLE holders_snapshots IS 'a holders-analytics snapshot of a verified ERC-20 token; the newest row per token is served. Written by the analytics job (analytics/holders.go).';

-- ============================================================================================
-- Positions in long lists
-- Deep pages seek instead of skipping rows: key_counts and key_marks for lists in chain
-- order by one key (db/key_positions.go), rank_spans for lists whose order changes
-- (db/rank_spans.go).
-- ============================================================================================

-- key_counts: how many rows a key has in one list that the APIs filter by a key (list: the numbers of
-- db.keyList): the list's total. Written by the indexer with the rows; a reorg takes back what
-- the orphaned blocks added (db.UndoAbove).
CREATE TABLE key_counts (
    list smallint NOT NULL,
    key bytea NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (list, key)
);
COMMENT ON TABLE key_counts IS 'how many rows a key has in one list that the APIs filter by a key (list: the numbers of db.keyList): the list''s total. Written by the indexer with the rows; a reorg takes back what the orphaned blocks added (db.UndoAbove).';

-- key_marks: where a key's row 1000, 2000, ... of a list stands (ordinal counted from its oldest row),
-- for keys with more than a thousand rows. Written by the indexer with the rows; a reorg deletes
-- the marks above its fork point.
CREATE TABLE key_marks (
    list smallint NOT NULL,
    key bytea NOT NULL,
    ordinal bigint NOT NULL,
    block_number bigint NOT NULL,
    tx_index integer NOT NULL,
    event_index integer NOT NULL,
    PRIMARY KEY (list, key, ordinal)
);
COMMENT ON TABLE key_marks IS 'where a key''s row 1000, 2000, ... of a list stands (ordinal counted from its oldest row), for keys with more than a thousand rows. Written by the indexer with the rows; a reorg deletes the marks above its fork point.';

CREATE INDEX key_marks_block ON key_marks (block_number);
COMMENT ON INDEX key_marks_block IS 'a reorg deletes the marks above its fork point (db.UndoAbove)';

-- fill_key_positions computes key_counts and key_marks again from the rows, through the views
-- of felts: for a database whose positions are lost (the indexer keeps them as it writes).
-- +goose StatementBegin
CREATE FUNCTION fill_key_positions(every bigint DEFAULT 1000) RETURNS void
    LANGUAGE plpgsql
    AS $$
DECLARE
    lists text[] := ARRAY[
        'SELECT from_address AS key, block_number, tx_index, event_index FROM events_named',
        'SELECT key0 AS key, block_number, tx_index, event_index FROM events_named',
        'SELECT sender_address AS key, block_number, tx_index, 0 AS event_index FROM transactions_named',
        'SELECT contract_address AS key, block_number, tx_index, 0 AS event_index FROM transactions_named',
        'SELECT convert_to(type::text, ''UTF8'') AS key, block_number, tx_index, 0 AS event_index FROM transactions',
        'SELECT token_address AS key, block_number, tx_index, event_index FROM token_transfers_named',
        'SELECT from_address AS key, block_number, tx_index, event_index FROM token_transfers_named',
        'SELECT to_address AS key, block_number, tx_index, event_index FROM token_transfers_named',
        'SELECT from_address AS key, block_number, tx_index, event_index FROM token_transfers_named
            UNION ALL SELECT to_address, block_number, tx_index, event_index FROM token_transfers_named WHERE to_address <> from_address'];
BEGIN
    DELETE FROM key_marks;
    DELETE FROM key_counts;
    FOR i IN 1 .. array_length(lists, 1) LOOP
        -- lists[i]: one row (key, block_number, tx_index, event_index) per row of list i.
        EXECUTE format('INSERT INTO key_counts (list, key, n) SELECT %s, key, count(*) FROM (%s) r
            WHERE key IS NOT NULL GROUP BY key', i, lists[i]);
        EXECUTE format('INSERT INTO key_marks (list, key, ordinal, block_number, tx_index, event_index)
            SELECT %s, key, o, block_number, tx_index, event_index FROM (
                SELECT key, block_number, tx_index, event_index,
                    row_number() OVER (PARTITION BY key ORDER BY block_number, tx_index, event_index) - 1 AS o
                FROM (%s) r WHERE key IN (SELECT key FROM key_counts WHERE list = %s AND n > %s)) x
            WHERE o > 0 AND o %% %s = 0', i, lists[i], i, every, every);
    END LOOP;
END $$;
-- +goose StatementEnd

-- How many rows a span is cut at (a span holds up to twice as many); tests lower it with the
-- setting starkgraph.rank_span_rows.
-- +goose StatementBegin
CREATE FUNCTION rank_span_rows() RETURNS bigint
    LANGUAGE sql STABLE
    AS $$
    SELECT coalesce(nullif(current_setting('starkgraph.rank_span_rows', true), '')::bigint, 500)
$$;
-- +goose StatementEnd

-- At commit, when every statement's counts are in, a span that grew past 2 * rank_span_rows()
-- rows is cut, and one that shrank to rank_span_rows() / 4 or fewer is joined to the span
-- before it (the first span of a key stays): a cut made between the UPDATE and the INSERT
-- triggers of one upsert would count rows that are not counted yet, and joins keep the
-- spans of a key with holders coming and going few.
-- +goose StatementBegin
CREATE FUNCTION rank_spans_resize() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
    m bigint := rank_span_rows();
    cur bigint;
    prev record;
BEGIN
    SELECT n INTO cur FROM rank_spans WHERE list = NEW.list AND key = NEW.key AND s1 = NEW.s1 AND s2 = NEW.s2;
    IF cur > 2 * m THEN
        PERFORM rank_spans_split(NEW.list, NEW.key, NEW.s1, NEW.s2, cur);
    ELSIF cur <= m / 4 AND NEW.s1 <> 'Infinity' THEN
        SELECT s1, s2 INTO prev FROM rank_spans WHERE list = NEW.list AND key = NEW.key AND (s1, s2) > (NEW.s1, NEW.s2)
        ORDER BY s1, s2 LIMIT 1;
        DELETE FROM rank_spans WHERE list = NEW.list AND key = NEW.key AND s1 = NEW.s1 AND s2 = NEW.s2;
        UPDATE rank_spans SET n = n + cur WHERE list = NEW.list AND key = NEW.key AND s1 = prev.s1 AND s2 = prev.s2;
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- rank_spans: the row count of one span of consecutive rows of a list whose order changes (a token's
-- holders by balance, list 1; a collection's holders, 2; a class's contracts by deployment, 3),
-- starting after the sort key (s1, s2). Written by the triggers of erc20_balances, nft_holders
-- and contracts (rank_spans_add); split and merged by rank_spans_resize.
CREATE TABLE rank_spans (
    list smallint NOT NULL,
    key bytea NOT NULL,
    s1 numeric NOT NULL,
    s2 bytea NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (list, key, s1, s2)
);
COMMENT ON TABLE rank_spans IS 'the row count of one span of consecutive rows of a list whose order changes (a token''s holders by balance, list 1; a collection''s holders, 2; a class''s contracts by deployment, 3), starting after the sort key (s1, s2). Written by the triggers of erc20_balances, nft_holders and contracts (rank_spans_add); split and merged by rank_spans_resize.';

CREATE CONSTRAINT TRIGGER rank_spans_resize AFTER UPDATE ON rank_spans DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((new.n > (2 * rank_span_rows())) OR (new.n <= (rank_span_rows() / 4)))) EXECUTE FUNCTION rank_spans_resize();

-- rank_spans_add counts rows into (d = 1) or out of (d = -1) the spans of list that hold
-- their sort keys (v1, v2).
-- +goose StatementBegin
CREATE FUNCTION rank_spans_add(p_list smallint, p_keys bytea[], p_v1 numeric[], p_v2 bytea[], p_d integer[]) RETURNS void
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO rank_spans (list, key, s1, s2, n)
    SELECT DISTINCT p_list, u.k, 'Infinity'::numeric, '\x'::bytea, 0::bigint
    FROM unnest(p_keys, p_d) u (k, d) WHERE u.d > 0
    ON CONFLICT DO NOTHING;
    WITH moved AS (
        SELECT sp.s1, sp.s2, u.k, sum(u.d) AS d
        FROM unnest(p_keys, p_v1, p_v2, p_d) u (k, v1, v2, d)
        CROSS JOIN LATERAL (SELECT s.s1, s.s2 FROM rank_spans s
            WHERE s.list = p_list AND s.key = u.k AND (s.s1, s.s2) > (u.v1, u.v2)
            ORDER BY s.s1, s.s2 LIMIT 1) sp
        GROUP BY sp.s1, sp.s2, u.k HAVING sum(u.d) <> 0)
    UPDATE rank_spans s SET n = s.n + moved.d FROM moved
    WHERE s.list = p_list AND s.key = moved.k AND s.s1 = moved.s1 AND s.s2 = moved.s2;
END $$;
-- +goose StatementEnd

-- rank_spans_cut is the sort key of the row at position m (from 1) after (s1, s2) in list's
-- key, NULL when there are fewer rows.
-- +goose StatementBegin
CREATE FUNCTION rank_spans_cut(p_list smallint, p_key bytea, p_s1 numeric, p_s2 bytea, m bigint, OUT c1 numeric, OUT c2 bytea) RETURNS record
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF p_list = 1 AND p_s1 = 'Infinity' THEN
        SELECT balance, owner_address INTO c1, c2 FROM erc20_balances
        WHERE token_address = p_key AND balance > 0
        ORDER BY balance DESC, owner_address DESC OFFSET m - 1 LIMIT 1;
    ELSIF p_list = 1 THEN
        SELECT balance, owner_address INTO c1, c2 FROM erc20_balances
        WHERE token_address = p_key AND balance > 0 AND (balance, owner_address) < (p_s1, p_s2)
        ORDER BY balance DESC, owner_address DESC OFFSET m - 1 LIMIT 1;
    ELSIF p_list = 2 AND p_s1 = 'Infinity' THEN
        SELECT held, owner_address INTO c1, c2 FROM nft_holders
        WHERE contract_address = p_key
        ORDER BY held DESC, owner_address DESC OFFSET m - 1 LIMIT 1;
    ELSIF p_list = 2 THEN
        SELECT held, owner_address INTO c1, c2 FROM nft_holders
        WHERE contract_address = p_key AND (held, owner_address) < (p_s1, p_s2)
        ORDER BY held DESC, owner_address DESC OFFSET m - 1 LIMIT 1;
    ELSIF p_list = 3 AND p_s1 = 'Infinity' THEN
        SELECT coalesce(deployed_block, -1), address INTO c1, c2 FROM contracts
        WHERE class_hash = p_key
        ORDER BY coalesce(deployed_block, -1) DESC, address DESC OFFSET m - 1 LIMIT 1;
    ELSIF p_list = 3 THEN
        SELECT coalesce(deployed_block, -1), address INTO c1, c2 FROM contracts
        WHERE class_hash = p_key AND (coalesce(deployed_block, -1), address) < (p_s1::bigint, p_s2)
        ORDER BY coalesce(deployed_block, -1) DESC, address DESC OFFSET m - 1 LIMIT 1;
    ELSE
        RAISE EXCEPTION 'rank_spans: no list %', p_list;
    END IF;
END $$;
-- +goose StatementEnd

-- rank_spans_split cuts the span of list's key that starts at (s1, s2) and holds n rows
-- into spans of rank_span_rows() rows, the last one holding the rest.
-- +goose StatementBegin
CREATE FUNCTION rank_spans_split(p_list smallint, p_key bytea, p_s1 numeric, p_s2 bytea, p_n bigint) RETURNS void
    LANGUAGE plpgsql
    AS $$
DECLARE
    m bigint := rank_span_rows();
    c record;
BEGIN
    WHILE p_n > 2 * m LOOP
        c := rank_spans_cut(p_list, p_key, p_s1, p_s2, m);
        IF c.c1 IS NULL THEN
            RAISE EXCEPTION 'rank_spans: list % key % counts % rows after (%, %), has fewer',
                p_list, p_key, p_n, p_s1, p_s2;
        END IF;
        UPDATE rank_spans SET n = m WHERE list = p_list AND key = p_key AND s1 = p_s1 AND s2 = p_s2;
        INSERT INTO rank_spans (list, key, s1, s2, n) VALUES (p_list, p_key, c.c1, c.c2, p_n - m);
        p_s1 := c.c1;
        p_s2 := c.c2;
        p_n := p_n - m;
    END LOOP;
END $$;
-- +goose StatementEnd

-- ============================================================================================
-- Seed rows: the one-row tables' rows, the counted lists that start at zero, the plans.
-- ============================================================================================
INSERT INTO indexer_state DEFAULT VALUES;
INSERT INTO block_partitioning DEFAULT VALUES;
INSERT INTO chain_stats DEFAULT VALUES;
INSERT INTO staking_figures (id, total_stake_strk, total_stake_btc, btc_share) VALUES (1, 0, 0, 0);
INSERT INTO list_counts (name, count) VALUES ('messages', 0), ('staking_activity', 0), ('attestations', 0);
INSERT INTO plans (name, rate_per_second, burst, daily_quota, monthly_quota, allowed_operations, max_subscriptions) VALUES
    ('free', 5,      20,     10000,   200000,   NULL, 100),
    ('pro',  50,     200,    1000000, 25000000, NULL, 100),
    -- the key `dev` mode prints: effectively unlimited, for local work and benchmarks
    ('dev',  100000, 100000, NULL,    NULL,     NULL, 100000);

-- +goose Down
-- The baseline is the whole schema: going below it drops everything but goose's table.
DROP VIEW validator_economics;
DROP VIEW staking_economy;
DROP VIEW erc20_balance_changes_named;
DROP VIEW events_named;
DROP VIEW token_transfers_named;
DROP VIEW calls_named;
DROP VIEW transactions_named;
DROP TABLE rank_spans;
DROP TABLE key_marks;
DROP TABLE key_counts;
DROP TABLE holders_snapshots;
DROP TABLE active_sender_blocks;
DROP TABLE sender_last_blocks;
DROP TABLE activity_stats;
DROP TABLE chain_stats;
DROP TABLE list_counts;
DROP TABLE verified_classes;
DROP TABLE verification_job_log;
DROP TABLE verification_jobs;
DROP TABLE server_secrets;
DROP TABLE api_key_usage;
DROP TABLE api_keys;
DROP TABLE plans;
DROP TABLE nft_metadata_requests;
DROP TABLE nft_events;
DROP TABLE nft_holders;
DROP TABLE nft_balances;
DROP TABLE nft_items;
DROP TABLE validator_figures;
DROP TABLE staking_figures;
DROP TABLE attestations;
DROP TABLE staking_activity;
DROP TABLE validator_days;
DROP TABLE stake_points;
DROP TABLE delegations;
DROP TABLE pools;
DROP TABLE validators;
DROP TABLE staking_overview;
DROP TABLE contracts;
DROP TABLE classes;
DROP TABLE token_prices;
DROP TABLE erc20_balances;
DROP TABLE erc20_balance_changes;
DROP TABLE token_transfers;
DROP TABLE tokens;
DROP TABLE starknet_id_domains;
DROP TABLE starknet_id_names;
DROP TABLE aliases;
DROP TABLE l1_state;
DROP TABLE l1_messages;
DROP TABLE meta_transactions;
DROP TABLE messages;
DROP TABLE events;
DROP TABLE calls;
DROP TABLE transactions;
DROP TABLE blocks;
DROP TABLE deferred_constraints;
DROP TABLE undo_rows;
DROP TABLE block_partitioning;
DROP TABLE indexer_state;
DROP TABLE felt_ids;
DROP FUNCTION rank_spans_split;
DROP FUNCTION rank_spans_cut;
DROP FUNCTION rank_spans_add;
DROP FUNCTION rank_spans_resize;
DROP FUNCTION rank_span_rows;
DROP FUNCTION fill_key_positions;
DROP FUNCTION refresh_chain_stats;
DROP FUNCTION nft_holders_rank;
DROP FUNCTION refresh_staking_figures;
DROP FUNCTION isqrt;
DROP FUNCTION validators_take_labels;
DROP FUNCTION contracts_rank;
DROP FUNCTION erc20_balances_rank;
DROP FUNCTION tokens_take_labels;
DROP FUNCTION tokens_market_cap;
DROP FUNCTION blocks_txs_before;
DROP FUNCTION felt_id;
DROP FUNCTION transfer_event_data;
DROP FUNCTION transfer_event_keys_tail;
DROP FUNCTION u256_packed;
DROP FUNCTION numeric_felt;
DROP FUNCTION numeric_felt_wide;
DROP FUNCTION felts_at;
DROP FUNCTION felts_count;
DROP FUNCTION felts_unpack;
DROP FUNCTION felts_pack;
DROP FUNCTION felt_packed;
DROP TYPE tx_finality_status, tx_execution_status;
