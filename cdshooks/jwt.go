package cdshooks

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// ClientAuth checks the JSON web token a CDS client signs every call with
// (CDS Hooks 2.0, Trusting CDS Clients): asymmetric signature by a key of
// the trusted clients' JWK Set, an allowed issuer, the called URL as
// audience, not expired, and a jti not seen before.
type ClientAuth struct {
	keys map[string]any // kid → *ecdsa.PublicKey or *rsa.PublicKey
	// Issuers allowed; empty allows any issuer whose key is in the set.
	issuers map[string]bool
	// publicURL is the service's base URL as clients call it (the
	// audience's prefix), e.g. "https://cds.example.org".
	publicURL string
	now       func() time.Time
	mu        sync.Mutex
	seen      map[string]time.Time // jti → expiry
}

// LoadClientAuth reads the trusted clients' public keys from a JWK Set
// file; issuers (optional) are the allowed iss values, publicURL the base
// URL the clients call.
func LoadClientAuth(jwksFile string, issuers []string, publicURL string) (*ClientAuth, error) {
	b, err := os.ReadFile(jwksFile)
	if err != nil {
		return nil, fmt.Errorf("client keys: %w", err)
	}
	keys, err := parseJWKS(b)
	if err != nil {
		return nil, fmt.Errorf("client keys %s: %w", jwksFile, err)
	}
	if publicURL == "" {
		return nil, errors.New("client keys: the service's public URL is needed to check each token's audience (--public-url https://cds.example.org)")
	}
	a := &ClientAuth{keys: keys, issuers: map[string]bool{}, publicURL: strings.TrimRight(publicURL, "/"), now: time.Now, seen: map[string]time.Time{}}
	for _, i := range issuers {
		if i = strings.TrimSpace(i); i != "" {
			a.issuers[i] = true
		}
	}
	return a, nil
}

type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
	N   string `json:"n"`
	E   string `json:"e"`
}

func parseJWKS(b []byte) (map[string]any, error) {
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("not a JWK Set: %w", err)
	}
	if len(set.Keys) == 0 {
		return nil, errors.New("the JWK Set holds no key")
	}
	out := map[string]any{}
	for i, k := range set.Keys {
		if k.Kid == "" {
			return nil, fmt.Errorf("key %d has no kid; every key needs one (the token header names it)", i)
		}
		switch k.Kty {
		case "EC":
			var c elliptic.Curve
			switch k.Crv {
			case "P-256":
				c = elliptic.P256()
			case "P-384":
				c = elliptic.P384()
			case "P-521":
				c = elliptic.P521()
			default:
				return nil, fmt.Errorf("key %s: curve %q; use P-256, P-384 or P-521", k.Kid, k.Crv)
			}
			x, err1 := b64int(k.X)
			y, err2 := b64int(k.Y)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("key %s: x or y is not base64url", k.Kid)
			}
			if !c.IsOnCurve(x, y) {
				return nil, fmt.Errorf("key %s: the point is not on %s", k.Kid, k.Crv)
			}
			out[k.Kid] = &ecdsa.PublicKey{Curve: c, X: x, Y: y}
		case "RSA":
			n, err1 := b64int(k.N)
			e, err2 := b64int(k.E)
			if err1 != nil || err2 != nil || !e.IsInt64() {
				return nil, fmt.Errorf("key %s: n or e is not base64url", k.Kid)
			}
			if n.BitLen() < 2048 {
				return nil, fmt.Errorf("key %s: a %d-bit RSA key; use at least 2048 bits", k.Kid, n.BitLen())
			}
			out[k.Kid] = &rsa.PublicKey{N: n, E: int(e.Int64())}
		default:
			return nil, fmt.Errorf("key %s: kty %q; client keys are EC or RSA (symmetric keys are not allowed)", k.Kid, k.Kty)
		}
	}
	return out, nil
}

func b64int(s string) (*big.Int, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	return new(big.Int).SetBytes(b), nil
}

// algs are the asymmetric JWS algorithms accepted; "none" and the HMAC
// ones are refused, as the specification requires.
var algs = map[string]struct {
	hash crypto.Hash
	kind string // EC, RSA, PSS
}{
	"ES256": {crypto.SHA256, "EC"}, "ES384": {crypto.SHA384, "EC"}, "ES512": {crypto.SHA512, "EC"},
	"RS256": {crypto.SHA256, "RSA"}, "RS384": {crypto.SHA384, "RSA"}, "RS512": {crypto.SHA512, "RSA"},
	"PS256": {crypto.SHA256, "PSS"}, "PS384": {crypto.SHA384, "PSS"}, "PS512": {crypto.SHA512, "PSS"},
}

// Check verifies the request's bearer JWT; the error says what is wrong
// (the answer is 401).
func (a *ClientAuth) Check(r *http.Request) error {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || tok == "" {
		return errors.New("no bearer JWT in the Authorization header; a CDS client signs every call")
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return errors.New("the bearer token is not a signed JWT (header.payload.signature)")
	}
	var hdr struct {
		Alg, Kid, Typ string
	}
	if err := decodePart(parts[0], &hdr); err != nil {
		return fmt.Errorf("JWT header: %v", err)
	}
	alg, ok := algs[hdr.Alg]
	if !ok {
		return fmt.Errorf("JWT alg %q is not accepted; sign with ES384 or RS384 (asymmetric)", hdr.Alg)
	}
	key, ok := a.keys[hdr.Kid]
	if !ok {
		return fmt.Errorf("JWT kid %q is not a trusted client key", hdr.Kid)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return errors.New("JWT signature is not base64url")
	}
	if err := verify(alg.kind, alg.hash, key, parts[0]+"."+parts[1], sig); err != nil {
		return fmt.Errorf("JWT signature (kid %s): %v", hdr.Kid, err)
	}
	var claims struct {
		Iss string          `json:"iss"`
		Aud json.RawMessage `json:"aud"`
		Exp *float64        `json:"exp"`
		Iat *float64        `json:"iat"`
		Jti string          `json:"jti"`
	}
	if err := decodePart(parts[1], &claims); err != nil {
		return fmt.Errorf("JWT payload: %v", err)
	}
	now := a.now()
	switch {
	case claims.Iss == "":
		return errors.New("JWT has no iss")
	case len(a.issuers) > 0 && !a.issuers[claims.Iss]:
		return fmt.Errorf("JWT iss %q is not a trusted client", claims.Iss)
	case claims.Exp == nil || claims.Iat == nil || claims.Jti == "":
		return errors.New("JWT lacks exp, iat or jti")
	case now.After(time.Unix(int64(*claims.Exp), 0)):
		return errors.New("JWT has expired")
	}
	want := a.publicURL + r.URL.Path
	if !audience(claims.Aud, want) {
		return fmt.Errorf("JWT aud is not %s, the endpoint called", want)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for j, exp := range a.seen {
		if now.After(exp) {
			delete(a.seen, j)
		}
	}
	key2 := claims.Iss + " " + claims.Jti
	if _, dup := a.seen[key2]; dup {
		return errors.New("JWT jti already used (a replay)")
	}
	a.seen[key2] = time.Unix(int64(*claims.Exp), 0)
	return nil
}

func decodePart(s string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return errors.New("not base64url")
	}
	return json.Unmarshal(b, v)
}

func audience(raw json.RawMessage, want string) bool {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one == want
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		for _, a := range many {
			if a == want {
				return true
			}
		}
	}
	return false
}

func verify(kind string, h crypto.Hash, key any, signed string, sig []byte) error {
	var digest []byte
	switch h {
	case crypto.SHA256:
		d := sha256.Sum256([]byte(signed))
		digest = d[:]
	case crypto.SHA384:
		d := sha512.Sum384([]byte(signed))
		digest = d[:]
	default:
		d := sha512.Sum512([]byte(signed))
		digest = d[:]
	}
	switch kind {
	case "EC":
		k, ok := key.(*ecdsa.PublicKey)
		if !ok {
			return errors.New("an EC algorithm with a non-EC key")
		}
		n := (k.Curve.Params().BitSize + 7) / 8
		if len(sig) != 2*n {
			return errors.New("wrong signature length")
		}
		if !ecdsa.Verify(k, digest, new(big.Int).SetBytes(sig[:n]), new(big.Int).SetBytes(sig[n:])) {
			return errors.New("does not verify")
		}
	case "RSA", "PSS":
		k, ok := key.(*rsa.PublicKey)
		if !ok {
			return errors.New("an RSA algorithm with a non-RSA key")
		}
		var err error
		if kind == "RSA" {
			err = rsa.VerifyPKCS1v15(k, h, digest, sig)
		} else {
			err = rsa.VerifyPSS(k, h, digest, sig, nil)
		}
		if err != nil {
			return errors.New("does not verify")
		}
	}
	return nil
}
