package httpserve

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// BearerToken returns the token of the request's "Authorization: Bearer
// <token>" header. The scheme is case-insensitive (RFC 9110 §11.1):
// "Bearer", "bearer" and "BEARER" are one scheme.
func BearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// TokenSum is the hash a token is kept as: servers keep no token itself,
// and comparing hashes takes the same time whatever the lengths.
type TokenSum [sha256.Size]byte

// SumToken hashes a token.
func SumToken(token string) TokenSum { return sha256.Sum256([]byte(token)) }

// Matches reports, in constant time, whether token hashes to s.
func (s TokenSum) Matches(token string) bool {
	got := SumToken(token)
	return subtle.ConstantTimeCompare(got[:], s[:]) == 1
}

// Authenticated marks the connection of r as authenticated: a request on
// it carried a valid token. Serve keeps room for such connections and
// gives connections that never authenticated a short idle timeout
// (Limits.UnauthIdleTimeout). Handlers call it once a token checks out;
// it does nothing for a request not served by Serve.
func Authenticated(r *http.Request) {
	if c, ok := r.Context().Value(connKey{}).(*trackedConn); ok {
		c.authenticate()
	}
}
