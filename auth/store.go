package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"golang.org/x/sync/singleflight"
)

// Errors of the store.
var (
	ErrUnknownKey  = errors.New("unknown or revoked API key")
	ErrUnknownPlan = errors.New("unknown plan")
)

// keyPrefix starts every generated key, so that a leaked one is easy to
// recognise (e.g. by secret scanners).
const keyPrefix = "sg_"

// maxLabelLength bounds the free text attached to a key.
const maxLabelLength = 200

// Plan is a row of the plans table.
type Plan struct {
	Name          string  `db:"name"`
	RatePerSecond float64 `db:"rate_per_second"`
	Burst         int     `db:"burst"`
	// DailyQuota and MonthlyQuota are nil when unlimited.
	DailyQuota   *int64 `db:"daily_quota"`
	MonthlyQuota *int64 `db:"monthly_quota"`
	// AllowedOperations is nil when the plan may call every operation.
	AllowedOperations pq.StringArray `db:"allowed_operations"`
	// MaxSubscriptions caps the GraphQL subscriptions one key holds open in one API
	// process; nil when upserting keeps the column's default (100).
	MaxSubscriptions *int `db:"max_subscriptions"`
}

// Rate is the plan's token bucket.
func (p Plan) Rate() Rate { return Rate{RatePerSecond: p.RatePerSecond, Burst: p.Burst} }

// Quota is the plan's daily and monthly caps.
func (p Plan) Quota() Quota {
	var q Quota
	if p.DailyQuota != nil {
		q.Daily = *p.DailyQuota
	}
	if p.MonthlyQuota != nil {
		q.Monthly = *p.MonthlyQuota
	}
	return q
}

// Allows reports whether the plan may call op. An entry ending in "*"
// allows every operation that starts with what precedes it.
func (p Plan) Allows(op string) bool {
	if p.AllowedOperations == nil {
		return true
	}
	for _, allowed := range p.AllowedOperations {
		if allowed == op {
			return true
		}
		if stem, ok := strings.CutSuffix(allowed, "*"); ok && strings.HasPrefix(op, stem) {
			return true
		}
	}
	return false
}

// Key is a row of the api_keys table. The key itself is never stored.
type Key struct {
	ID        int64      `db:"id"`
	Prefix    string     `db:"key_prefix"`
	Label     string     `db:"label"`
	PlanName  string     `db:"plan"`
	CreatedAt time.Time  `db:"created_at"`
	RevokedAt *time.Time `db:"revoked_at"`
}

// UsageDay is one key's usage on one UTC day.
type UsageDay struct {
	Day          time.Time `db:"day"`
	Requests     int64     `db:"requests"`
	ClientErrors int64     `db:"client_errors"`
	RateLimited  int64     `db:"rate_limited"`
	// Deliveries are the webhook delivery attempts made for the key (DeliveryMeter).
	Deliveries int64 `db:"webhook_deliveries"`
}

// Store reads and writes plans, keys and usage, and caches key lookups.
type Store struct {
	db    *sqlx.DB
	cache *expirable.LRU[[sha256.Size]byte, cachedKey]
	// lookups merges concurrent cache misses for one key into one query, so
	// a burst of requests with a new key costs the database one statement.
	lookups singleflight.Group
	// generation counts cache purges; a lookup that raced with one does not
	// cache its (possibly stale) answer.
	generation atomic.Uint64
}

// cachedKey is the answer to one lookup; found is false for unknown and
// revoked keys, which are cached too so that repeated bad keys stay cheap.
type cachedKey struct {
	found bool
	key   Key
	plan  Plan
}

// DefaultCacheTTL bounds how long a revocation or plan change made by another
// process takes to be seen. A revocation through the same Store is immediate.
const DefaultCacheTTL = 5 * time.Second

// StoreOption configures a Store.
type StoreOption func(*storeConfig)

type storeConfig struct {
	cacheTTL  time.Duration
	cacheSize int
}

// WithCacheTTL sets how long key lookups are cached (DefaultCacheTTL otherwise).
func WithCacheTTL(d time.Duration) StoreOption {
	return func(c *storeConfig) { c.cacheTTL = d }
}

// NewStore returns a store over db, whose schema is migrated.
func NewStore(db *sqlx.DB, opts ...StoreOption) *Store {
	cfg := storeConfig{cacheTTL: DefaultCacheTTL, cacheSize: 10000}
	for _, o := range opts {
		o(&cfg)
	}
	return &Store{db: db, cache: expirable.NewLRU[[sha256.Size]byte, cachedKey](cfg.cacheSize, nil, cfg.cacheTTL)}
}

// hashKey is what the database holds for a key. Keys carry at least 128
// random bits, so an unsalted SHA-256 cannot be reversed by guessing; and the
// lookup by this hash compares nothing an attacker can steer byte by byte, so
// its timing says nothing about the key.
func hashKey(plaintext string) [sha256.Size]byte {
	return sha256.Sum256([]byte(plaintext))
}

// displayPrefix is the part of a key shown in listings: enough to tell keys
// apart, never more than half of the key.
func displayPrefix(plaintext string) string {
	n := min(len(keyPrefix)+8, len(plaintext)/2)
	return plaintext[:n]
}

// newKeyText returns a fresh key: "sg_" and 192 random bits in hex.
func newKeyText() string {
	var b [24]byte
	rand.Read(b[:]) // never fails (crypto/rand panics rather than return an error)
	return keyPrefix + hex.EncodeToString(b[:])
}

// validateKeyText checks a caller-chosen key (the dev key): it must fit in an
// HTTP header unchanged.
func validateKeyText(k string) error {
	if len(k) < 8 || len(k) > 256 {
		return errors.New("an API key must be 8 to 256 characters long")
	}
	for i := 0; i < len(k); i++ {
		if k[i] <= ' ' || k[i] > '~' {
			return errors.New("an API key may only hold printable ASCII characters without spaces")
		}
	}
	return nil
}

// CreateKey creates a key on plan and returns its text, which is not kept
// anywhere and cannot be shown again.
func (s *Store) CreateKey(ctx context.Context, plan, label string) (string, Key, error) {
	if len(label) > maxLabelLength {
		return "", Key{}, fmt.Errorf("a label may be at most %d bytes long", maxLabelLength)
	}
	text := newKeyText()
	k, err := s.insertKey(ctx, text, plan, label, false)
	if err != nil {
		return "", Key{}, err
	}
	return text, k, nil
}

// EnsureKey makes the key text exist, active, on plan with label: it is how
// `dev` installs a development key whose value scripts know in advance.
func (s *Store) EnsureKey(ctx context.Context, text, plan, label string) (Key, error) {
	if err := validateKeyText(text); err != nil {
		return Key{}, err
	}
	if len(label) > maxLabelLength {
		return Key{}, fmt.Errorf("a label may be at most %d bytes long", maxLabelLength)
	}
	return s.insertKey(ctx, text, plan, label, true)
}

func (s *Store) insertKey(ctx context.Context, text, plan, label string, upsert bool) (Key, error) {
	if _, err := s.Plan(ctx, plan); err != nil {
		return Key{}, err
	}
	hash := hashKey(text)
	q := `INSERT INTO api_keys (key_hash, key_prefix, label, plan) VALUES ($1, $2, $3, $4)`
	if upsert {
		q += ` ON CONFLICT (key_hash) DO UPDATE
		       SET label = excluded.label, plan = excluded.plan, revoked_at = NULL`
	}
	q += ` RETURNING id, key_prefix, label, plan, created_at, revoked_at`
	var k Key
	if err := s.db.GetContext(ctx, &k, q, hash[:], displayPrefix(text), label, plan); err != nil {
		return Key{}, fmt.Errorf("insert API key: %w", err)
	}
	s.purge() // it may have been cached as unknown or revoked
	return k, nil
}

// Plan returns the plan named name, or ErrUnknownPlan.
func (s *Store) Plan(ctx context.Context, name string) (Plan, error) {
	var p Plan
	err := s.db.GetContext(ctx, &p, `SELECT name, rate_per_second, burst, daily_quota, monthly_quota, allowed_operations,
		max_subscriptions FROM plans WHERE name = $1`, name)
	if errors.Is(err, sql.ErrNoRows) {
		return Plan{}, fmt.Errorf("%w %q", ErrUnknownPlan, name)
	}
	return p, err
}

// ListPlans returns every plan by name.
func (s *Store) ListPlans(ctx context.Context) ([]Plan, error) {
	var ps []Plan
	err := s.db.SelectContext(ctx, &ps, `SELECT name, rate_per_second, burst, daily_quota, monthly_quota, allowed_operations,
		max_subscriptions FROM plans ORDER BY name`)
	return ps, err
}

// UpsertPlan creates or replaces a plan. Running servers see the change
// within their cache TTL.
func (s *Store) UpsertPlan(ctx context.Context, p Plan) error {
	_, err := s.db.NamedExecContext(ctx, `INSERT INTO plans
		(name, rate_per_second, burst, daily_quota, monthly_quota, allowed_operations, max_subscriptions)
		VALUES (:name, :rate_per_second, :burst, :daily_quota, :monthly_quota, :allowed_operations,
			coalesce(:max_subscriptions, 100))
		ON CONFLICT (name) DO UPDATE SET rate_per_second = excluded.rate_per_second,
			burst = excluded.burst, daily_quota = excluded.daily_quota,
			monthly_quota = excluded.monthly_quota, allowed_operations = excluded.allowed_operations,
			max_subscriptions = excluded.max_subscriptions`, p)
	if err != nil {
		return fmt.Errorf("upsert plan %q: %w", p.Name, err)
	}
	s.purge()
	return nil
}

// Lookup returns the active key whose text is text, and its plan, or
// ErrUnknownKey. Answers are cached for the store's TTL.
func (s *Store) Lookup(ctx context.Context, text string) (Key, Plan, error) {
	hash := hashKey(text)
	if c, ok := s.cache.Get(hash); ok {
		if !c.found {
			return Key{}, Plan{}, ErrUnknownKey
		}
		return c.key, c.plan, nil
	}
	v, err, _ := s.lookups.Do(string(hash[:]), func() (any, error) {
		// Shared by every waiter: do not let the first caller's cancellation
		// fail the others.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		return s.lookupUncached(ctx, hash)
	})
	if err != nil {
		return Key{}, Plan{}, err
	}
	c := v.(cachedKey)
	if !c.found {
		return Key{}, Plan{}, ErrUnknownKey
	}
	return c.key, c.plan, nil
}

// lookupUncached reads a key from the database and caches the answer.
func (s *Store) lookupUncached(ctx context.Context, hash [sha256.Size]byte) (cachedKey, error) {
	gen := s.generation.Load()
	var row struct {
		Key
		Plan `db:"p"`
	}
	err := s.db.GetContext(ctx, &row, `SELECT k.id, k.key_prefix, k.label, k.plan, k.created_at, k.revoked_at,
			p.name AS "p.name", p.rate_per_second AS "p.rate_per_second", p.burst AS "p.burst",
			p.daily_quota AS "p.daily_quota", p.monthly_quota AS "p.monthly_quota",
			p.allowed_operations AS "p.allowed_operations", p.max_subscriptions AS "p.max_subscriptions"
		FROM api_keys k JOIN plans p ON p.name = k.plan
		WHERE k.key_hash = $1 AND k.revoked_at IS NULL`, hash[:])
	var c cachedKey
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return cachedKey{}, fmt.Errorf("look up API key: %w", err)
	default:
		c = cachedKey{found: true, key: row.Key, plan: row.Plan}
	}
	if s.generation.Load() == gen {
		s.cache.Add(hash, c)
	}
	return c, nil
}

// ListKeys returns every key, revoked ones included, oldest first.
func (s *Store) ListKeys(ctx context.Context) ([]Key, error) {
	var ks []Key
	err := s.db.SelectContext(ctx, &ks, `SELECT id, key_prefix, label, plan, created_at, revoked_at
		FROM api_keys ORDER BY id`)
	return ks, err
}

// FindKey resolves what a person typed to name a key: the key itself, its
// id, or its displayed prefix (which must then be unambiguous).
func (s *Store) FindKey(ctx context.Context, ref string) (Key, error) {
	const cols = `SELECT id, key_prefix, label, plan, created_at, revoked_at FROM api_keys`
	var ks []Key
	hash := hashKey(ref)
	if err := s.db.SelectContext(ctx, &ks, cols+` WHERE key_hash = $1`, hash[:]); err != nil {
		return Key{}, err
	}
	if len(ks) == 0 {
		if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
			if err := s.db.SelectContext(ctx, &ks, cols+` WHERE id = $1`, id); err != nil {
				return Key{}, err
			}
		}
	}
	if len(ks) == 0 {
		if err := s.db.SelectContext(ctx, &ks, cols+` WHERE key_prefix = $1 ORDER BY id`, ref); err != nil {
			return Key{}, err
		}
	}
	switch len(ks) {
	case 0:
		return Key{}, fmt.Errorf("no API key has id, prefix or value %q", ref)
	case 1:
		return ks[0], nil
	default:
		return Key{}, fmt.Errorf("prefix %q names %d keys; use the id", ref, len(ks))
	}
}

// RevokeKey revokes the key named by ref (see FindKey). Revoking twice keeps
// the first revocation time. This store forgets its cached lookups at once;
// other processes within their cache TTL.
func (s *Store) RevokeKey(ctx context.Context, ref string) (Key, error) {
	k, err := s.FindKey(ctx, ref)
	if err != nil {
		return Key{}, err
	}
	err = s.db.GetContext(ctx, &k, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now())
		WHERE id = $1 RETURNING id, key_prefix, label, plan, created_at, revoked_at`, k.ID)
	if err != nil {
		return Key{}, fmt.Errorf("revoke API key: %w", err)
	}
	s.purge() // the cache is keyed by hash, which we do not have for an id or prefix
	return k, nil
}

// Usage returns the recorded usage of the key named by ref (see FindKey),
// newest day first. Usage is written in batches, so the current day may lag
// by a few seconds.
func (s *Store) Usage(ctx context.Context, ref string) (Key, []UsageDay, error) {
	k, err := s.FindKey(ctx, ref)
	if err != nil {
		return Key{}, nil, err
	}
	var days []UsageDay
	err = s.db.SelectContext(ctx, &days, `SELECT day, requests, client_errors, rate_limited, webhook_deliveries
		FROM api_key_usage WHERE key_id = $1 ORDER BY day DESC`, k.ID)
	return k, days, err
}

// usageDelta is counts to add to one key's day.
type usageDelta struct {
	keyID int64
	day   string // YYYY-MM-DD, UTC
	UsageDay
}

// addUsage adds a batch of counts in one statement.
func (s *Store) addUsage(ctx context.Context, deltas []usageDelta) error {
	if len(deltas) == 0 {
		return nil
	}
	ids := make(pq.Int64Array, len(deltas))
	days := make(pq.StringArray, len(deltas))
	reqs := make(pq.Int64Array, len(deltas))
	errs := make(pq.Int64Array, len(deltas))
	limited := make(pq.Int64Array, len(deltas))
	deliveries := make(pq.Int64Array, len(deltas))
	for i, d := range deltas {
		ids[i], days[i], reqs[i], errs[i], limited[i], deliveries[i] = d.keyID, d.day, d.Requests, d.ClientErrors, d.RateLimited, d.Deliveries
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO api_key_usage AS u (key_id, day, requests, client_errors, rate_limited, webhook_deliveries)
		SELECT * FROM unnest($1::bigint[], $2::date[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[])
		ON CONFLICT (key_id, day) DO UPDATE SET
			requests = u.requests + excluded.requests,
			client_errors = u.client_errors + excluded.client_errors,
			rate_limited = u.rate_limited + excluded.rate_limited,
			webhook_deliveries = u.webhook_deliveries + excluded.webhook_deliveries`,
		ids, days, reqs, errs, limited, deliveries)
	if err != nil {
		return fmt.Errorf("record API key usage: %w", err)
	}
	return nil
}

// purge forgets every cached lookup, including those in flight.
func (s *Store) purge() {
	s.generation.Add(1)
	s.cache.Purge()
}
