package discovery

import "github.com/go-zkrecipes/zkrecipes/internal/errs"

// Option configures a Discovery.
type Option func(*options) error

type options struct {
	enabledField bool
}

// WithEnabledField writes the "enabled" field in the instances this
// Discovery registers, as Curator's JsonInstanceSerializer(payloadClass,
// false) does, so that an instance can be registered disabled. Without it
// instances are written as Curator's default serializer writes them,
// without "enabled" (readable by every Curator release), and registering a
// disabled instance fails with an *InstanceError.
func WithEnabledField() Option {
	return func(o *options) error {
		o.enabledField = true
		return nil
	}
}

// ProviderOption configures a Provider.
type ProviderOption func(*providerOptions) error

type providerOptions struct {
	strategy Strategy
	filters  []func(Instance) bool
	down     DownInstancePolicy
}

// WithStrategy sets how the provider picks an instance (default:
// RoundRobin()). A nil strategy is an error wrapping zkrecipes.ErrInvalidArgument.
func WithStrategy(s Strategy) ProviderOption {
	return func(o *providerOptions) error {
		if s == nil {
			return errs.Invalid("nil strategy")
		}
		o.strategy = s
		return nil
	}
}

// WithFilter adds a filter (Curator's additionalFilter, an InstanceFilter):
// the provider hands out only instances for which every filter returns
// true. Filters run on the caller's goroutine at every GetInstance and
// GetAllInstances, so they must be quick and safe for concurrent use. A nil
// filter is an error wrapping zkrecipes.ErrInvalidArgument.
func WithFilter(keep func(Instance) bool) ProviderOption {
	return func(o *providerOptions) error {
		if keep == nil {
			return errs.Invalid("nil filter")
		}
		o.filters = append(o.filters, keep)
		return nil
	}
}

// WithDownInstancePolicy sets when instances reported with NoteError are
// left out (default: DefaultDownInstancePolicy). A Timeout not above zero
// or an ErrorThreshold below 1 is an error wrapping zkrecipes.ErrInvalidArgument.
func WithDownInstancePolicy(p DownInstancePolicy) ProviderOption {
	return func(o *providerOptions) error {
		if p.Timeout <= 0 || p.ErrorThreshold < 1 {
			return errs.Invalid("down instance policy %+v: needs a positive Timeout and an ErrorThreshold of at least 1", p)
		}
		o.down = p
		return nil
	}
}
