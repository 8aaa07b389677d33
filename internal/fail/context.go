package fail

import (
	"context"
	"errors"
)

// FromContext is the error to report for err, what a run ended with, given
// why ctx, the invocation's, ended: interrupted (a cause that is
// interrupted) or past its deadline.
func FromContext(ctx context.Context, err, interrupted error) error {
	if err == nil {
		return nil
	}
	if cause := context.Cause(ctx); cause != nil && errors.Is(cause, interrupted) {
		if CodeOf(err) == Interrupted {
			return err // says what the interrupt did (a task cancelled)
		}
		return interrupted
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && CodeOf(err) != Timeout {
		return Deadline(err)
	}
	return err
}
