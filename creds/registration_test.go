package creds

import (
	"context"
	"testing"
	"time"
)

func TestRegistrationUsable(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	r := &Registration{RedirectURIs: []string{"http://127.0.0.1:40000/callback"}}
	for _, c := range []struct {
		redirect string
		want     bool
	}{
		{"http://127.0.0.1:40000/callback", true},
		{"http://127.0.0.1:51234/callback", true}, // RFC 8252: any loopback port
		{"http://127.0.0.1:51234/elsewhere", false},
		{"http://localhost:40000/callback", false},
		{"https://127.0.0.1:40000/callback", false},
	} {
		if got := r.usable([]string{c.redirect}, now); got != c.want {
			t.Errorf("usable(%s) = %v, want %v", c.redirect, got, c.want)
		}
	}
	r.SecretExpires = now.Add(30 * time.Second)
	if r.usable(r.RedirectURIs, now) {
		t.Error("a registration whose secret expires within a minute is usable")
	}
}

func TestForgetRegistrationOnlyItsClient(t *testing.T) {
	ctx := context.Background()
	st := NewMemStore()
	if err := saveRegistration(ctx, st, &Registration{Issuer: "https://as.example.com", ClientID: "a", RedirectURIs: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	if gone, err := ForgetRegistration(ctx, st, "https://as.example.com/", "b"); gone || err != nil {
		t.Fatalf("another client's registration was forgotten: %v %v", gone, err)
	}
	if gone, err := ForgetRegistration(ctx, st, "https://as.example.com/", "a"); !gone || err != nil {
		t.Fatalf("the registration was not forgotten: %v %v", gone, err)
	}
	if _, err := LoadRegistration(ctx, st, "https://as.example.com"); err != ErrNotFound {
		t.Fatalf("LoadRegistration after forgetting: %v", err)
	}
}
