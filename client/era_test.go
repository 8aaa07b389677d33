package client

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// The era is decided from the pin, else the remembered verdict, else a
// probe; only a decision that relies on what was remembered can be stale.
func TestNewEra(t *testing.T) {
	disc := json.RawMessage(`{"supportedVersions":["2026-07-28"]}`)
	modern := &EraRecord{Version: modernVersion, Verdict: verdictProbe, Discover: disc}
	legacy := &EraRecord{Version: legacyVersion, Verdict: verdictInitialize}
	for _, tc := range []struct {
		name       string
		pin        string
		rec        *EraRecord
		version    string
		source     string
		replays    bool
		remembered bool
		trace      string
	}{
		{"nothing known", "", nil, "", "probe", false, false, "auto (probe with server/discover, bound 10s) from probe"},
		{"remembered modern", "", modern, modernVersion, "memo", true, true, "2026-07-28 from memo"},
		{"remembered legacy", "", legacy, legacyVersion, "memo", false, true, "2025-11-25 from memo"},
		{"modern pin, met before", modernVersion, modern, modernVersion, "pin", true, true, "2026-07-28 from pin"},
		{"modern pin, met as legacy", modernVersion, legacy, modernVersion, "pin", false, false, "2026-07-28 from pin"},
		{"legacy pin", legacyVersion, modern, legacyVersion, "pin", false, false, "2025-11-25 from pin"},
		{"modern pin, never met", modernVersion, nil, modernVersion, "pin", false, false, "2026-07-28 from pin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEra(tc.pin, tc.rec)
			if e.version != tc.version || e.source != tc.source || (e.discover != nil) != tc.replays || e.remembered() != tc.remembered {
				t.Errorf("newEra = %+v (remembered %v)", e, e.remembered())
			}
			if got := e.describe(true, DefaultProbeTimeout); got != tc.trace {
				t.Errorf("describe = %q, want %q", got, tc.trace)
			}
			if f := e.afresh(); f.remembered() || f.rec != nil || f.pin != tc.pin {
				t.Errorf("afresh = %+v", f)
			}
		})
	}
	if got := newEra("", nil).describe(false, time.Second); got != "auto (probe with server/discover) from probe" {
		t.Errorf("describe over HTTP = %q", got)
	}
}

// A server remembered to die is not probed again when it dies again; a
// server remembered to speak an era is.
func TestEraDiedAgain(t *testing.T) {
	exited := &fail.Error{Code: fail.ServerExited, Msg: "exited"}
	for _, tc := range []struct {
		verdict   string
		diedAgain bool
	}{
		{verdictDiedOnProbe, true},
		{verdictDiedAtStart, true},
		{verdictInitialize, false},
	} {
		e := newEra("", &EraRecord{Version: legacyVersion, Verdict: tc.verdict})
		if got := e.diedAgain(exited); got != tc.diedAgain {
			t.Errorf("%s: diedAgain = %v", tc.verdict, got)
		}
		if e.diedAgain(&fail.Error{Code: fail.Timeout}) {
			t.Errorf("%s: a timeout counted as a death", tc.verdict)
		}
		// Under a pin the remembered death is not relied on.
		if newEra(legacyVersion, e.rec).diedAgain(exited) {
			t.Errorf("%s: diedAgain under a pin", tc.verdict)
		}
	}
	if newEra("", nil).diedAgain(exited) {
		t.Error("diedAgain without a remembered verdict")
	}
}

// What a successful connection teaches the memo.
func TestEraLearned(t *testing.T) {
	dead := &EraRecord{Version: legacyVersion, Verdict: verdictDiedAtStart}
	disc := &EraRecord{Version: modernVersion, Verdict: verdictProbe, Discover: json.RawMessage(`{}`)}
	for _, tc := range []struct {
		name       string
		era        era
		negotiated string
		verdict    string
		forget     bool
	}{
		{"probe, modern", newEra("", nil), modernVersion, verdictProbe, false},
		{"probe, legacy", newEra("", nil), legacyVersion, verdictInitialize, false},
		{"modern pin, discover asked", newEra(modernVersion, nil), modernVersion, verdictProbe, false},
		{"modern pin, discover replayed", newEra(modernVersion, disc), modernVersion, "", false},
		{"legacy pin", newEra(legacyVersion, nil), legacyVersion, "", false},
		{"remembered", newEra("", disc), modernVersion, "", false},
		{"remembered death, answering", newEra("", dead), legacyVersion, "", true},
		{"remembered death, modern pin", newEra(modernVersion, dead), modernVersion, verdictProbe, false},
	} {
		verdict, forget := tc.era.learned(tc.negotiated)
		if verdict != tc.verdict || forget != tc.forget {
			t.Errorf("%s: learned = %q, %v; want %q, %v", tc.name, verdict, forget, tc.verdict, tc.forget)
		}
	}
}

// A failure of a remembered decision is stale evidence only while the
// invocation runs.
func TestEraStale(t *testing.T) {
	exited := &fail.Error{Code: fail.ServerExited, Msg: "exited"}
	remembered := newEra("", &EraRecord{Version: legacyVersion, Verdict: verdictInitialize})
	if !remembered.stale(context.Background(), exited) {
		t.Error("a remembered era whose server exited is not stale")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if remembered.stale(ctx, exited) {
		t.Error("stale after the invocation ended")
	}
	if newEra("", nil).stale(context.Background(), exited) {
		t.Error("a probe is stale")
	}
}
