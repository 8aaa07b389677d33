package units

import (
	"encoding/json"
	"testing"
	"time"
)

func TestSizeRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int64
		text string
	}{
		{"1", 1, "1B"}, {"1536", 1536, "1536B"}, {"2KiB", 2 << 10, "2KiB"}, {"128MiB", 128 << 20, "128MiB"},
		{"1024MiB", 1 << 30, "1GiB"}, {"4GiB", MaxSize, "4GiB"}, {" 7 B", 7, "7B"},
	} {
		n, err := ParseSize(tc.in)
		if err != nil || n != tc.n || SizeText(n) != tc.text {
			t.Errorf("ParseSize(%q) = %d, %v; SizeText = %q, want %d and %q", tc.in, n, err, SizeText(n), tc.n, tc.text)
		}
	}
	for _, bad := range []string{"", "0", "-1", "5GiB", "4097MiB", "1.5MiB", "1KB", "x"} {
		if _, err := ParseSize(bad); err == nil || err.Error() != `invalid size "`+bad+`" (use bytes or a size like "128MiB", at most 4GiB)` {
			t.Errorf("ParseSize(%q) = %v", bad, err)
		}
	}
}

func TestJSON(t *testing.T) {
	var v struct {
		D Duration `json:"d"`
		N Duration `json:"n"`
		Z Size     `json:"z"`
		B Size     `json:"b"`
	}
	if err := json.Unmarshal([]byte(`{"d": "2m", "n": 1.5, "z": "64MiB", "b": 512}`), &v); err != nil {
		t.Fatal(err)
	}
	if time.Duration(v.D) != 2*time.Minute || time.Duration(v.N) != 1500*time.Millisecond || v.Z != 64<<20 || v.B != 512 {
		t.Fatalf("decoded %+v", v)
	}
	out, _ := json.Marshal(v)
	if string(out) != `{"d":"2m0s","n":"1.5s","z":"64MiB","b":"512B"}` {
		t.Fatalf("encoded %s", out)
	}
	for in, want := range map[string]string{
		`{"d": "soon"}`: `invalid duration "soon" (use seconds or a duration like "90s")`,
		`{"d": -1}`:     `invalid timeout -1 (use seconds or a duration like "90s")`,
		`{"z": "big"}`:  `invalid size "big" (use bytes or a size like "128MiB", at most 4GiB)`,
	} {
		if err := json.Unmarshal([]byte(in), &v); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}
