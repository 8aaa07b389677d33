package config

import (
	"math"
	"strings"
	"unicode"
)

// What 'mcpc config import' takes for a literal credential, by the name it
// is under (an env variable, a header, a flag, a query parameter) or by
// the shape of the value. A false positive only costs an export (or, in
// args, an entry added by hand); a false negative copies a secret into a
// file that may be shared.

// secretParts are found anywhere in a name, upper-cased: no word holding
// them is anything but a secret's (GITHUB_PERSONAL_ACCESS_TOKEN, APIKEY,
// x-api-secret, DB_PASSWD).
var secretParts = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "COOKIE", "APIKEY", "ACCESSKEY", "PRIVATEKEY"}

// secretWordSet are whole words of a name (split at '_', '-', '.' and
// camelCase), too short to look for inside other words: KEY is not in
// KEYBOARD_LAYOUT, PAT not in PATH, PASS not in PASSTHROUGH, AUTH not in
// AUTHOR or OAUTH_CLIENT_ID (AUTH alone is a header's or a basic auth
// pair's). PWD alone is the shell's working directory, so only a PWD
// with another word (DB_PWD) counts.
// (A switch, not a map: nothing is made at init.)
func secretWordSet(w string) bool {
	switch w {
	case "KEY", "PASS", "PAT", "PWD", "AUTH", "AUTHORIZATION", "PRIVATE", "SIGNATURE", "SESSIONID":
		return true
	}
	return false
}

func secretName(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range secretParts {
		if strings.Contains(up, w) {
			return true
		}
	}
	words := nameWords(name)
	for i, w := range words {
		switch {
		case w == "PWD" && len(words) == 1:
		case secretWordSet(w), w == "SESSION" && i+1 < len(words) && words[i+1] == "ID":
			return true
		}
	}
	return false
}

// nameWords splits name into upper-cased words at '_', '-', '.', blanks
// and a lower-to-upper case change (githubPat: GITHUB, PAT; APIKey: API,
// KEY).
func nameWords(name string) []string {
	var words []string
	var cur []rune
	rs := []rune(name)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if len(cur) > 0 {
				words, cur = append(words, strings.ToUpper(string(cur))), nil
			}
			continue
		}
		// A new word at aB, and at the B of ABc (APIKey: API, Key).
		if len(cur) > 0 && unicode.IsUpper(r) && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1])) {
			words, cur = append(words, strings.ToUpper(string(cur))), nil
		}
		cur = append(cur, r)
	}
	if len(cur) > 0 {
		words = append(words, strings.ToUpper(string(cur)))
	}
	return words
}

// tokenPrefixes begin the credentials services issue: GitHub's (ghp_,
// gho_, ghu_, ghs_, ghr_, github_pat_), GitLab's, OpenAI's and
// Anthropic's (sk-), Stripe's, Slack's (xoxa-, xoxb-, xoxp-, xoxr-,
// xoxs-), npm's, Hugging Face's. What follows must be 16 or more
// token bytes, so "sk-learn" is no credential.
var tokenPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "sk-", "sk_live_", "sk_test_", "rk_live_",
	"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-", "npm_", "hf_"}

// tokenShaped reports whether v looks like a credential whatever it is
// named: a service's token by its prefix, an AWS access key id, a JWT, a
// PEM private key, or a long random string (see highEntropy).
func tokenShaped(v string) bool {
	if strings.Contains(v, "${") {
		return false
	}
	v = strings.TrimSpace(v)
	// "Bearer X", "token X": the credential is the last word.
	if i := strings.LastIndexByte(v, ' '); i >= 0 && !strings.Contains(v, "-----BEGIN") {
		v = v[i+1:]
	}
	for _, p := range tokenPrefixes {
		if rest, ok := strings.CutPrefix(v, p); ok && len(rest) >= 16 && tokenBytes(rest, "_-") {
			return true
		}
	}
	switch {
	case len(v) == 20 && (strings.HasPrefix(v, "AKIA") || strings.HasPrefix(v, "ASIA")) && tokenBytes(v, ""):
		return true
	case strings.HasPrefix(v, "eyJ") && strings.Count(v, ".") == 2 && len(v) >= 30 && tokenBytes(v, "_-."):
		return true
	case strings.Contains(v, "-----BEGIN") && strings.Contains(v, "PRIVATE KEY"):
		return true
	}
	return highEntropy(v)
}

// tokenBytes reports whether s is letters, digits and bytes of extra only.
func tokenBytes(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(extra, c) >= 0) {
			return false
		}
	}
	return true
}

// highEntropy reports whether s is a random string: 32 bytes or more of
// base64 (standard or URL), with letters and digits spread through it (a
// digit in 20 bytes or more; random base64 has one in 6), and Shannon
// entropy within 0.8 bits a byte of the most its length allows (log2 of
// it), capped at 4.3 bits. A random base64 string of 32 bytes has about
// 4.55 (1 in 100: under 4.2); words, identifiers and paths (which start
// with '/'), URLs (':' is not base64), UUIDs and hex digests (4 bits a
// byte at most) stay below one bound or the other.
func highEntropy(s string) bool {
	if len(s) < 32 || len(s) > 4096 || s[0] == '/' || !tokenBytes(s, "+/=_-") {
		return false
	}
	var counts [256]int
	letters, digits := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		counts[c]++
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
		}
	}
	if letters == 0 || digits*20 < len(s) {
		return false
	}
	var h float64
	for _, n := range counts {
		if n > 0 {
			p := float64(n) / float64(len(s))
			h -= p * math.Log2(p)
		}
	}
	return h >= min(math.Log2(float64(len(s)))-0.8, 4.3)
}
