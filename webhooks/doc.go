// Package webhooks holds the foundations of webhooks (issue 57): pushing indexed chain
// activity to a URL its owner chose, in the Standard Webhooks format, safely and with
// retries. It is not yet wired into the server: nothing here is stored, scheduled or exposed
// through the API.
//
// # What is built
//
// Signing (sign.go): the Standard Webhooks wire format (https://www.standardwebhooks.com/).
// NewSecret makes a "whsec_" secret of 32 random bytes; Sign signs one attempt of a message
// with every secret it is given (two during a rotation, new then old, so that receivers
// holding either accept), writing webhook-id, webhook-timestamp and webhook-signature; Verify
// checks a received message as a Go receiver would, with the spec's five minutes of
// tolerance. The npm `standardwebhooks` library (clients/webhooks.mjs, run by
// TestStandardWebhooksLibraryVerifies) verifies what Sign makes, and refuses a tampered
// body, a wrong secret and a timestamp ten minutes old; what it signs, Verify accepts; and
// the spec's published test vector signs as published.
//
// A sender safe to point anywhere (address.go, client.go). Webhook URLs are chosen by API
// key holders, that is by anyone. CheckURL is the check at creation: https only (http with
// Options.AllowHTTP, for development), a host, no user information or fragment, and a host
// naming an address or "localhost" must be an allowed one. NewClient's transport dials
// through a dialer that resolves the name itself (Options.Resolver), refuses the whole name
// if any address it resolves to is loopback, private (RFC 1918, fc00::/7), link-local
// (169.254/16 with the cloud metadata address, fe80::/10), unspecified, multicast, CGNAT
// (100.64/10) or another special-purpose range, judging IPv4-mapped (::ffff:a.b.c.d) and
// NAT64 addresses as their IPv4 (AddressReason), and then connects only to the addresses it
// checked, by their literal, so a DNS answer changing in between (rebinding) cannot reach a
// refused address; the default net.Dialer checks the address once more in its Control,
// just before connect(2). Loopback is allowed only with Options.AllowLoopback (tests,
// development). No proxy is used, no redirect followed, every phase has a timeout
// (AttemptTimeout bounds the whole attempt), at most ReadLimit bytes of an answer are read
// and RecordBytes of it kept.
//
// A delivery attempt (deliver.go): Sender.Deliver posts a message's JSON body, signed at
// the attempt's time with the message's fixed id, and classifies the answer: 2xx
// Delivered; 410 Disable; 429 or 503 with Retry-After SlowDown (the delay, capped, in
// Attempt.RetryAfter); anything else, redirects included, and network errors, timeouts and
// refused addresses Retry. The Attempt records what a delivery log shows: start, latency,
// status, the first KiB of the answer, a redirect's Location, the error.
//
// The retry schedule (backoff.go): Backoff(n) waits a uniformly random time up to
// min(6 h, 5 s × 2^(n-1)) (full jitter); GiveUp stops after 36 attempts or when the next
// would come more than three days after the first. The last attempt comes about 2.8 days
// after the first on average, never after three days; backoff.go has the numbers.
//
// The tests use real receivers (httptest servers on loopback) and the real npm library, and
// a resolver and dial function of their own to show refused addresses are refused before
// any connection is opened; no test sends a packet to an address other than loopback.
//
// # What the rest of issue 57 needs
//
//   - Storage (a migration, once the baseline migration settles): webhooks as a resource of
//     an API key (url, filters, secrets with the previous one and its expiry during a
//     rotation, paused/disabled and why, created_at); a delivery log (message id, attempt,
//     start, latency, status, the recorded answer, error), pruned by age; the plan's bound on
//     webhooks per key and deliveries counted toward the key's quota.
//   - Durability: decide between a per-webhook position in the indexed chain advancing only
//     after a 2xx (messages rebuilt from the indexed rows; no write cost in the indexer) and
//     an outbox written in the indexer's transaction with the rows (simple replay, a write
//     per matching item); measure the indexer's tx/s with each (the bench, 1,000 webhooks).
//     Either way the message id must be stable across restarts: derive it from the webhook and
//     the item (block hash, transaction hash, event index), not from NewMessageID.
//   - The delivery loop: per webhook in order, at least once; a worker pool with bounded
//     concurrency per endpoint (Options.MaxConnsPerHost bounds connections, the loop must
//     bound in-flight messages) and overall, so a slow receiver holds back only its own
//     webhook; Backoff/GiveUp/SlowDown as above; Disable on 410; an endpoint failing for days
//     disabled with the reason shown to its owner; replay of one message or a block range.
//   - Reorgs: an item delivered then undone is delivered again with "removed": true, then the
//     new branch's items; optionally only ACCEPTED_ON_L1 items. Note the issue asks for the
//     retraction to carry the same webhook-id, but receivers deduplicate on webhook-id (the
//     spec's purpose for it), so a deduplicating receiver would drop the retraction: give the
//     retraction its own id (e.g. the item's id + ":removed") and the item's id in the body.
//   - The payload: block, position, finality status, the kind of item, in the shapes of the
//     GraphQL schema.
//   - API: GraphQL mutations and queries to create (showing the secret once), list, pause,
//     rotate, delete, replay and read the log; `starkgraph webhooks` for operators; the
//     operator flags for AllowHTTP and AllowLoopback (config.go), off by default.
//   - Operations: metrics (deliveries by outcome, failures, retries, backlog age per webhook
//     and overall, latency from block commit to receiver), alert rules with promtool tests, a
//     dashboard row, docs/webhooks.md with a receiver verifying with `standardwebhooks`.
//   - The end-to-end test (a flaky receiver, sim --reorg-every, SIGKILLs, a
//     PostgreSQL restart) and the bench figures.
package webhooks
