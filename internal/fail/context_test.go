package fail

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestFromContext(t *testing.T) {
	interrupted := &Error{Code: Interrupted, Msg: "interrupted"}
	odd := errors.New("odd")
	if FromContext(context.Background(), nil, interrupted) != nil || FromContext(context.Background(), odd, interrupted) != odd {
		t.Error("a live context changes nothing")
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(interrupted)
	if got := FromContext(ctx, odd, interrupted); got != interrupted {
		t.Errorf("interrupted: %v", got)
	}
	told := &Error{Code: Interrupted, Msg: "interrupted: the task was cancelled"}
	if got := FromContext(ctx, told, interrupted); got != told {
		t.Errorf("an interrupt that says what it did: %v", got)
	}
	ctx, cancel2 := context.WithTimeout(context.Background(), -time.Second)
	defer cancel2()
	if got := As(FromContext(ctx, odd, interrupted)); got == nil || got.Code != Timeout || got.Msg != "timed out: the invocation ran longer than --timeout" || got.Err != odd {
		t.Errorf("past the deadline: %#v", got)
	}
	slow := &Error{Code: Timeout, Msg: "slow"}
	if got := FromContext(ctx, slow, interrupted); got != slow {
		t.Errorf("a timeout already: %v", got)
	}
}
