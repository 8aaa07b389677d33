package conn

import "context"

type idempotencyKey struct{}

// WithIdempotencyKey makes the tools/call of ctx's call carry key as
// SEP-3182's idempotencyKey, the same on every attempt (a rate limit's
// retry, a --retry): the server may then run it once.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idempotencyKey{}, key)
}

func idempotencyKeyOf(ctx context.Context) string {
	k, _ := ctx.Value(idempotencyKey{}).(string)
	return k
}
