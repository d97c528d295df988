package cdshooks_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/executablekg/execkg/cdshooks"
)

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// tamper swaps a signed token's payload for another.
func tamper(token, payload string) string {
	p := strings.Split(token, ".")
	p[1] = payload
	return strings.Join(p, ".")
}

func b64json(v any) string {
	b, _ := json.Marshal(v)
	return b64(b)
}

// TestClientAuth: with trusted client keys, a CDS call needs a JWT signed
// by one of them (ES384 or RS384), from an allowed issuer, for the called
// URL, unexpired and not replayed; anything else is 401 naming the fault.
func TestClientAuth(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	pad := func(b []byte, n int) []byte { return append(make([]byte, n-len(b)), b...) }
	jwks := map[string]any{"keys": []any{
		map[string]any{"kty": "EC", "kid": "ehr-ec", "crv": "P-384", "x": b64(pad(ec.X.Bytes(), 48)), "y": b64(pad(ec.Y.Bytes(), 48))},
		map[string]any{"kty": "RSA", "kid": "ehr-rsa", "n": b64(rk.N.Bytes()), "e": b64(big.NewInt(int64(rk.E)).Bytes())},
	}}
	file := filepath.Join(t.TempDir(), "jwks.json")
	b, _ := json.Marshal(jwks)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	const public = "https://cds.example.org"
	auth, err := cdshooks.LoadClientAuth(file, []string{"https://ehr.example.org/"}, public)
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := startServer(t, func(c *cdshooks.Config) { c.ClientAuth = auth })

	now := time.Now().Unix()
	claims := func(edit func(map[string]any)) map[string]any {
		c := map[string]any{"iss": "https://ehr.example.org/", "aud": public + "/cds-services", "exp": now + 300, "iat": now,
			"jti": b64json(time.Now().UnixNano())}
		if edit != nil {
			edit(c)
		}
		return c
	}
	sign := func(alg, kid string, c map[string]any) string {
		in := b64json(map[string]any{"alg": alg, "kid": kid, "typ": "JWT"}) + "." + b64json(c)
		d := sha512.Sum384([]byte(in))
		var sig []byte
		switch alg {
		case "ES384":
			r, s, _ := ecdsa.Sign(rand.Reader, ec, d[:])
			sig = append(pad(r.Bytes(), 48), pad(s.Bytes(), 48)...)
		case "RS384":
			sig, _ = rsa.SignPKCS1v15(rand.Reader, rk, crypto.SHA384, d[:])
		}
		return in + "." + b64(sig)
	}
	call := func(token string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/cds-services", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e cdshooks.ErrorBody
		json.NewDecoder(resp.Body).Decode(&e)
		return resp.StatusCode, e.Error
	}

	replayed := sign("ES384", "ehr-ec", claims(nil))
	for _, c := range []struct {
		name, token string
		status      int
		says        string
	}{
		{"ES384 from the trusted EHR", replayed, 200, ""},
		{"the same token again", replayed, 401, "replay"},
		{"RS384 from the trusted EHR", sign("RS384", "ehr-rsa", claims(nil)), 200, ""},
		{"audience a list holding the endpoint", sign("ES384", "ehr-ec", claims(func(c map[string]any) { c["aud"] = []string{"x", public + "/cds-services"} })), 200, ""},
		{"no token", "", 401, "no bearer JWT"},
		{"unsigned (alg none)", b64json(map[string]any{"alg": "none", "kid": "ehr-ec"}) + "." + b64json(claims(nil)) + ".", 401, "not accepted"},
		{"HMAC", b64json(map[string]any{"alg": "HS256", "kid": "ehr-ec"}) + "." + b64json(claims(nil)) + ".c2ln", 401, "not accepted"},
		{"unknown key", sign("ES384", "other", claims(nil)), 401, "not a trusted client key"},
		{"signed by another key under a trusted kid", sign("RS384", "ehr-ec", claims(nil)), 401, "signature"},
		{"payload changed after signing", tamper(sign("ES384", "ehr-ec", claims(nil)), b64json(claims(nil))), 401, "does not verify"},
		{"another issuer", sign("ES384", "ehr-ec", claims(func(c map[string]any) { c["iss"] = "https://evil.example/" })), 401, "not a trusted client"},
		{"another endpoint", sign("ES384", "ehr-ec", claims(func(c map[string]any) { c["aud"] = public + "/cds-services/x" })), 401, "aud"},
		{"expired", sign("ES384", "ehr-ec", claims(func(c map[string]any) { c["exp"] = now - 10 })), 401, "expired"},
		{"no jti", sign("ES384", "ehr-ec", claims(func(c map[string]any) { delete(c, "jti") })), 401, "jti"},
	} {
		status, msg := call(c.token)
		if status != c.status || !strings.Contains(msg, c.says) {
			t.Errorf("%s: %d %q, want %d saying %q", c.name, status, msg, c.status, c.says)
		}
	}
	// The page is not a CDS Hooks endpoint: no token needed.
	if status, _ := get(t, ts.URL+"/healthz"); status != 200 {
		t.Errorf("healthz with client auth on: %d", status)
	}
}
