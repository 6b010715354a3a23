-- Chain activity per UTC day ('d') and per hour ('h'), kept as rows: the indexer adds each
-- batch's counts to the buckets of its blocks in the batch's transaction (journaled for
-- reorgs), so statistics over days are read, never recomputed per request.

-- +goose Up
CREATE TABLE activity_stats (
    granularity     text   NOT NULL CHECK (granularity IN ('d', 'h')),
    starts_at       bigint NOT NULL, -- Unix seconds of the bucket's start, UTC
    blocks          bigint NOT NULL DEFAULT 0,
    transactions    bigint NOT NULL DEFAULT 0,
    invokes         bigint NOT NULL DEFAULT 0,
    declares        bigint NOT NULL DEFAULT 0,
    deploy_accounts bigint NOT NULL DEFAULT 0,
    l1_handlers     bigint NOT NULL DEFAULT 0,
    reverted        bigint NOT NULL DEFAULT 0,
    events          bigint NOT NULL DEFAULT 0,
    messages_to_l1  bigint NOT NULL DEFAULT 0,
    token_transfers bigint NOT NULL DEFAULT 0,
    fees_wei        numeric(78,0) NOT NULL DEFAULT 0,
    fees_fri        numeric(78,0) NOT NULL DEFAULT 0,
    PRIMARY KEY (granularity, starts_at)
);

-- What is indexed so far.
INSERT INTO activity_stats (granularity, starts_at, blocks, transactions, invokes, declares, deploy_accounts, l1_handlers,
                            reverted, events, messages_to_l1, token_transfers, fees_wei, fees_fri)
SELECT g.granularity, b.starts_at, b.blocks, b.transactions, coalesce(t.invokes, 0), coalesce(t.declares, 0),
       coalesce(t.deploy_accounts, 0), coalesce(t.l1_handlers, 0), coalesce(t.reverted, 0), b.events, b.messages,
       coalesce(x.transfers, 0), b.fees_wei, b.fees_fri
FROM (VALUES ('d', 86400), ('h', 3600)) AS g(granularity, width)
CROSS JOIN LATERAL (SELECT timestamp / g.width * g.width AS starts_at, count(*) AS blocks, sum(tx_count) AS transactions,
        sum(event_count) AS events, sum(message_count) AS messages, sum(fees_wei) AS fees_wei, sum(fees_fri) AS fees_fri
    FROM blocks GROUP BY 1) b
LEFT JOIN LATERAL (SELECT count(*) FILTER (WHERE type = 'INVOKE') AS invokes, count(*) FILTER (WHERE type = 'DECLARE') AS declares,
        count(*) FILTER (WHERE type = 'DEPLOY_ACCOUNT') AS deploy_accounts, count(*) FILTER (WHERE type = 'L1_HANDLER') AS l1_handlers,
        count(*) FILTER (WHERE execution_status = 'REVERTED') AS reverted
    FROM transactions WHERE timestamp >= b.starts_at AND timestamp < b.starts_at + g.width) t ON true
LEFT JOIN LATERAL (SELECT count(*) AS transfers FROM token_transfers
    WHERE timestamp >= b.starts_at AND timestamp < b.starts_at + g.width) x ON true;

-- +goose Down
DROP TABLE activity_stats;
