package commands

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/mcpc-dev/mcpc/client"
)

// leaves are the settable values of v, by name: the exported fields of a
// struct (those of an embedded one as its own), the elements of an array.
func leaves(v reflect.Value, name string, out map[string]reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			sub := name
			if !f.Anonymous {
				sub = name + "." + f.Name
			}
			leaves(v.Field(i), sub, out)
		}
	case reflect.Array:
		for i := range v.Len() {
			leaves(v.Index(i), name+"["+strconv.Itoa(i)+"]", out)
		}
	default:
		out[name] = v
	}
}

// setNonZero gives v a value that is not its zero.
func setNonZero(t *testing.T, name string, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Bool:
		v.SetBool(true)
	default:
		t.Fatalf("%s: teach setNonZero a %s", name, v.Kind())
	}
}

// everyFieldShown fails when a field of the record R does not change the
// view convert makes of it (the field was added to R and not to the view,
// or not converted), or when a leaf of the view is set by no field of R.
func everyFieldShown[R, V any](t *testing.T, convert func(R) V) {
	t.Helper()
	var zero R
	base := map[string]reflect.Value{}
	leaves(reflect.ValueOf(convert(zero)), "", base)
	reached := map[string]bool{}
	fields := map[string]reflect.Value{}
	leaves(reflect.ValueOf(&zero).Elem(), "", fields)
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		var r R
		got := map[string]reflect.Value{}
		rf := map[string]reflect.Value{}
		leaves(reflect.ValueOf(&r).Elem(), "", rf)
		setNonZero(t, name, rf[name])
		leaves(reflect.ValueOf(convert(r)), "", got)
		changed := false
		for n, v := range got {
			if !reflect.DeepEqual(v.Interface(), base[n].Interface()) {
				changed, reached[n] = true, true
			}
		}
		if !changed {
			t.Errorf("%T%s is not in its view %T: add it there and to the conversion in views.go", r, name, convert(r))
		}
	}
	for n := range base {
		if !reached[n] {
			t.Errorf("%T%s is set by no field of %T", convert(zero), n, zero)
		}
	}
}

// Each client record's text view (views.go) shows every field of it.
func TestViewsShowEveryField(t *testing.T) {
	everyFieldShown(t, sessionView)
	everyFieldShown(t, sessionRow)
	everyFieldShown(t, func(m client.Match) [4]string { return client.MatchRows([]client.Match{m})[0] })
}
