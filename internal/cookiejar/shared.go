package cookiejar

import "sync"

// Shared is one jar for every session of a run (a plan's cookies =
// "shared"): the loops' threads take turns at it.
type Shared struct {
	mu  sync.Mutex
	jar Jar
}

// SetCookie is Jar.SetCookie under the lock.
func (s *Shared) SetCookie(header, host, path string, secure bool, now int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.jar.SetCookie(header, host, path, secure, now)
}

// AppendHeader is Jar.AppendHeader under the lock.
func (s *Shared) AppendHeader(dst []byte, host string, path []byte, secure bool, now int64) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.jar.AppendHeader(dst, host, path, secure, now)
}

// Get is Jar.Get under the lock.
func (s *Shared) Get(name, host, path string, secure bool, now int64) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.jar.Get(name, host, path, secure, now)
}

// AppendRequest is Jar.AppendRequest under the lock.
func (s *Shared) AppendRequest(dst, req []byte, host string, secure bool, now int64) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.jar.AppendRequest(dst, req, host, secure, now)
}

// SetFromHead is Jar.SetFromHead under the lock.
func (s *Shared) SetFromHead(head []byte, host string, path []byte, secure bool, now int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.jar.SetFromHead(head, host, path, secure, now)
}
