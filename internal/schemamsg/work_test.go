package schemamsg

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpc-dev/mcpc/internal/memtest"
)

// A spent budget stays spent; an ended context is its cause, seen within
// 1024 charges.
func TestBudget(t *testing.T) {
	b := NewBudget(context.Background(), 10)
	if !b.Charge(10) || b.Charge(1) || b.Charge(0) || b.Left() != -1 || b.Err() != nil {
		t.Fatalf("left %d, err %v", b.Left(), b.Err())
	}
	stop := errors.New("stopped")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	b = NewBudget(ctx, 1<<30)
	n := 0
	for b.Charge(1) {
		n++
	}
	if n >= 1024 || !errors.Is(b.Err(), stop) {
		t.Fatalf("%d charges, err %v", n, b.Err())
	}
}

// DecodeWork reads any text in one pass, allocating only its answer
// (counted without a collection each time: the iterations stay fast).
func FuzzDecodeWork(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"string"}}}`))
	f.Add([]byte(strings.Repeat(`{"items":`, 300) + `{}` + strings.Repeat(`}`, 300)))
	f.Add([]byte(`"\\\"{[`))
	f.Add([]byte(`]]]}}}[[[`))
	f.Fuzz(func(t *testing.T, schema []byte) {
		var over string
		if a := testing.AllocsPerRun(1, func() { over = DecodeWork(schema) }); a > 8 {
			t.Fatalf("DecodeWork allocated %v times", a)
		}
		if over != "" && len(schema) == 0 {
			t.Fatal("an empty text over budget")
		}
	})
}

// Whatever the schema and the value, Work ends within its budget: it
// allocates about what it counts, and a value it passes is then checked
// by the validator within the budget too.
func FuzzPlanWork(f *testing.F) {
	f.Add(`{"properties":{"x":{"type":"string"}}}`, `{"x":1}`)
	f.Add(`{"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/b"},{"$ref":"#/$defs/b"}]},"b":{"anyOf":[{"$ref":"#/$defs/c"},{"$ref":"#/$defs/c"}]},"c":{"enum":[1,2,3]}},"$ref":"#/$defs/a"}`, `4`)
	f.Add(`{"items":{"patternProperties":{"^a":{"minLength":3}}}}`, `[{"ab":"x"},{"a":"yy"}]`)
	f.Add(`{"allOf":[{"not":{"type":"null"}},{"if":{"const":1},"then":{"maximum":0},"else":{"minimum":5}}]}`, `1`)
	const budget = 1 << 16
	f.Fuzz(func(t *testing.T, schema, inst string) {
		if len(schema) > 4096 || len(inst) > 4096 || DecodeWork([]byte(schema)) != "" {
			return
		}
		var sch jsonschema.Schema
		var v any
		if json.Unmarshal([]byte(schema), &sch) != nil || json.Unmarshal([]byte(inst), &v) != nil {
			return
		}
		res, err := sch.Resolve(nil)
		if err != nil {
			return
		}
		plan, loop := NewPlan(res.Schema())
		if plan == nil {
			if loop == "" {
				t.Fatal("no plan and no loop")
			}
			return
		}
		var over string
		a := memtest.Allocated(func() { over, err = plan.Work(context.Background(), v, budget) })
		if err != nil {
			t.Fatal(err)
		}
		// The count's own work: its frames, and printed values bounded
		// by what is left.
		if a > 8*budget {
			t.Fatalf("Work allocated %d bytes for a budget of %d", a, budget)
		}
		if over == "" {
			if a := memtest.Allocated(func() { res.Validate(v) }); a > budget {
				t.Fatalf("a check Work passed allocated %d bytes, over the budget of %d", a, budget)
			}
		}
	})
}

// StringEnd finds where a string ends as Strings does, byte by byte.
func FuzzStringEnd(f *testing.F) {
	for _, s := range []string{`"a"`, `"a\"b" x`, `"a\\" x`, `"a\\\"" x`, `"open`, `"\`, `"`, `""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		b = append([]byte{'"'}, b...)
		want := len(b)
		var text Strings
		for i, c := range b {
			if text.Outside(c); !text.In() {
				want = i + 1
				break
			}
		}
		if got := StringEnd(b, 0); got != want {
			t.Fatalf("StringEnd(%q) = %d, Strings says %d", b, got, want)
		}
	})
}
