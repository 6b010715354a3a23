package resolvers

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/webhooks"
)

// WebhookSettings are the operator's settings of webhooks the API checks at creation.
type WebhookSettings struct {
	// URLs says which URLs a webhook may have (webhooks.CheckURL): AllowHTTP and
	// AllowLoopback are operator flags, off by default.
	URLs webhooks.Options
	// Wake, when set, tells this process's delivery loop that a webhook changed.
	Wake func()
}

func (r *Resolver) wakeWebhooks() {
	if r.Webhooks.Wake != nil {
		r.Webhooks.Wake()
	}
}

// callerKey is the id of the request's API key; webhooks belong to one.
func callerKey(ctx context.Context) (int64, error) {
	k, ok := auth.KeyFromContext(ctx)
	if !ok {
		return 0, &gqlerror.Error{Message: "webhooks belong to an API key: send one (x-api-key)",
			Extensions: map[string]any{"code": "UNAUTHENTICATED"}}
	}
	return k.ID, nil
}

// webhookArgs are the caller's key and the webhook id argument.
func webhookArgs(ctx context.Context, id string) (int64, int64, error) {
	key, err := callerKey(ctx)
	if err != nil {
		return 0, 0, err
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return 0, 0, badInput("id", "is not a webhook id")
	}
	return key, n, nil
}

func unixOf(t *time.Time) *int {
	if t == nil {
		return nil
	}
	v := int(t.Unix())
	return &v
}

// found turns a missing webhook into NOT_FOUND.
func found(w *db.Webhook, err error) (*db.Webhook, error) {
	if err == nil && w == nil {
		return nil, notFound("id", "names no webhook of this API key")
	}
	return w, err
}

func (r *Resolver) changeWebhook(ctx context.Context, id string, change func(key, id int64) (*db.Webhook, error)) (*db.Webhook, error) {
	key, n, err := webhookArgs(ctx, id)
	if err != nil {
		return nil, err
	}
	w, err := found(change(key, n))
	if err == nil {
		r.wakeWebhooks()
	}
	return w, err
}

func (r *Resolver) createWebhook(ctx context.Context, in model.CreateWebhookInput) (*model.CreatedWebhook, error) {
	key, err := callerKey(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := webhooks.CheckURL(in.URL, r.Webhooks.URLs); err != nil || len(in.URL) > 2048 {
		msg := "is too long (at most 2048 bytes)"
		if err != nil {
			msg = strings.TrimPrefix(err.Error(), "webhooks: ")
		}
		return nil, badInput("input.url", msg)
	}
	w := &db.Webhook{KeyID: key, URL: in.URL, Kind: strings.ToLower(string(in.Kind))}
	if in.Description != nil {
		if utf8.RuneCountInString(*in.Description) > 200 || strings.ContainsRune(*in.Description, 0) {
			return nil, badInput("input.description", "is longer than 200 characters")
		}
		w.Description = *in.Description
	}
	felt := func(f db.Felt) string {
		if f == nil {
			return ""
		}
		return f.Hex()
	}
	var f db.WebhookFilter
	if t := in.Transactions; t != nil {
		f.SenderAddress, f.ContractAddress = felt(t.SenderAddress), felt(t.ContractAddress)
		if t.Type != nil {
			f.Type = string(*t.Type)
		}
	}
	f.Token, f.Wallet, f.Collection = felt(in.Token), felt(in.Wallet), felt(in.Collection)
	if in.Contract != nil {
		if in.Transactions != nil && in.Transactions.ContractAddress != nil {
			return nil, badInput("input.contract", "is a filter of EVENTS webhooks; TRANSACTIONS take transactions.contractAddress")
		}
		f.ContractAddress = felt(in.Contract)
	} else if w.Kind == webhooks.KindEvents && f.ContractAddress != "" {
		return nil, badInput("input.transactions", "is a filter of TRANSACTIONS webhooks")
	}
	for _, k := range in.Keys {
		f.Keys = append(f.Keys, k.Hex())
	}
	f.AcceptedOnL1Only = in.AcceptedOnL1Only != nil && *in.AcceptedOnL1Only
	if w.Filter, err = webhooks.CheckFilter(w.Kind, f); err != nil {
		return nil, badInput("input", err.Error())
	}
	var from *int64
	if in.FromBlock != nil {
		head, _, ok, err := db.IndexedHead(ctx, r.primary().DB())
		if err != nil {
			return nil, err
		}
		if *in.FromBlock < 0 || !ok || int64(*in.FromBlock) > head+1 {
			return nil, badInput("input.fromBlock", "must be a block indexed, or the next ("+strconv.FormatInt(head+1, 10)+")")
		}
		v := int64(*in.FromBlock)
		from = &v
	}
	if w.Secret, err = webhooks.NewSecret(); err != nil {
		return nil, err
	}
	if err := r.primary().CreateWebhook(ctx, w, from); err != nil {
		if errors.Is(err, db.ErrWebhookLimit) {
			return nil, badInput("input", err.Error())
		}
		return nil, err
	}
	r.wakeWebhooks()
	return &model.CreatedWebhook{Webhook: w, Secret: w.Secret}, nil
}

func (r *Resolver) rotateWebhookSecret(ctx context.Context, id string, overlapSeconds *int) (*model.CreatedWebhook, error) {
	overlap := 24 * time.Hour
	if overlapSeconds != nil { // within db.SecretOverlaps: the schema's @domain checked it
		overlap = time.Duration(*overlapSeconds) * time.Second
	}
	secret, err := webhooks.NewSecret()
	if err != nil {
		return nil, err
	}
	w, err := r.changeWebhook(ctx, id, func(k, n int64) (*db.Webhook, error) {
		return r.primary().RotateWebhookSecret(ctx, k, n, secret, overlap)
	})
	if err != nil {
		return nil, err
	}
	return &model.CreatedWebhook{Webhook: w, Secret: secret}, nil
}

func (r *Resolver) deleteWebhook(ctx context.Context, id string) (bool, error) {
	key, n, err := webhookArgs(ctx, id)
	if err != nil {
		return false, err
	}
	ok, err := r.primary().DeleteWebhook(ctx, key, n)
	if err == nil && !ok {
		return false, notFound("id", "names no webhook of this API key")
	}
	return ok, err
}

func (r *Resolver) replayWebhook(ctx context.Context, id string, fromBlock int, toBlock *int) (*db.Webhook, error) {
	key, n, err := webhookArgs(ctx, id)
	if err != nil {
		return nil, err
	}
	if toBlock != nil {
		return r.replayed(webhooks.ReplayRange(ctx, r.primary(), key, n, int64(fromBlock), int64(*toBlock)))
	}
	w, err := found(r.primary().KeyWebhook(ctx, key, n))
	if err != nil {
		return nil, err
	}
	if limit := w.Furthest().Block + 1; fromBlock < 0 || int64(fromBlock) > limit {
		return nil, badInput("fromBlock", "must be 0 to the block after the webhook's position ("+
			strconv.FormatInt(limit, 10)+")")
	}
	return r.changeWebhook(ctx, id, func(k, n int64) (*db.Webhook, error) {
		return r.primary().ReplayWebhook(ctx, k, n, int64(fromBlock))
	})
}

func (r *Resolver) replayWebhookMessage(ctx context.Context, id, messageID string) (*db.Webhook, error) {
	key, n, err := webhookArgs(ctx, id)
	if err != nil {
		return nil, err
	}
	return r.replayed(webhooks.ReplayMessage(ctx, r.primary(), key, n, messageID))
}

// replayed answers a replay started: its refusals as BAD_USER_INPUT, a missing webhook
// as NOT_FOUND; the delivery loop is woken.
func (r *Resolver) replayed(w *db.Webhook, err error) (*db.Webhook, error) {
	if in := (*webhooks.InputError)(nil); errors.As(err, &in) {
		return nil, badInput(in.Arg, in.Msg)
	}
	w, err = found(w, err)
	if err == nil {
		r.wakeWebhooks()
	}
	return w, err
}

func (r *Resolver) webhookDeliveries(ctx context.Context, id string, first *int, before *string) ([]*db.WebhookDelivery, error) {
	key, n, err := webhookArgs(ctx, id)
	if err != nil {
		return nil, err
	}
	limit := 50
	if first != nil {
		if *first < 1 || *first > 1000 {
			return nil, badInput("first", "must be 1 to 1000")
		}
		limit = *first
	}
	var below int64
	if before != nil {
		if below, err = strconv.ParseInt(*before, 10, 64); err != nil || below <= 0 {
			return nil, badInput("before", "is not a delivery id")
		}
	}
	if _, err := found(r.primary().KeyWebhook(ctx, key, n)); err != nil {
		return nil, err
	}
	return r.primary().WebhookDeliveries(ctx, n, limit, below)
}
