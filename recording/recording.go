// Package recording turns recorded HTTP traffic into tressi plans: a HAR
// file (what browsers' developer tools and proxies export) becomes a
// scenario per page, a curl command line a single endpoint. The plan it
// writes keeps the recording's order and think times, names each host as a
// variable, and holds every secret it can recognise (credentials, cookies,
// tokens in headers, queries and bodies) as a sensitive variable, never in
// clear.
package recording

import (
	"net/url"
	"time"
)

// Recording is what a HAR file or a curl command line recorded.
type Recording struct {
	// Source says where it came from, for the plan's opening comment.
	Source string
	// Sessions become scenarios (HAR pages) in recorded order.
	Sessions []Session
	// Single asks for one endpoint instead of a scenario (curl).
	Single bool
}

// Session is one page's requests, or a curl command's one.
type Session struct {
	Name     string
	Requests []Request
}

// Request is one recorded request.
type Request struct {
	Method  string
	URL     *url.URL
	Headers []Header // as sent, in order
	Body    []byte
	// Multipart holds curl's -F parts; Body is then empty.
	Multipart []Part
	// Basic holds curl's -u credentials, or a recorded Authorization:
	// Basic header's, sent as basic_auth; with Digest, as digest_auth
	// (curl --digest).
	Basic  *Credentials
	Digest bool
	// Redirects is how many redirects the request follows: curl -L, or a
	// HAR chain of 3xx entries folded into its first (har.go).
	Redirects int
	// Hops are the URLs a folded HAR chain went on to, in order: their
	// origins must be targets of the plan for the hops to be followed.
	Hops []*url.URL
	// Insecure is curl's -k: the server's certificate is not checked.
	Insecure bool
	// Status is the recorded answer's status (0: none recorded); for a
	// folded chain, the last answer's.
	Status int
	// Location is the recorded answer's redirect target, as recorded.
	Location string
	// SetCookies are the recorded answer's Set-Cookie values (a folded
	// chain's, every hop's): what the replay's cookie jar will send.
	SetCookies []string
	// Start and Duration place the request in time, for think times.
	Start    time.Time
	Duration time.Duration
}

// Header is one request header.
type Header struct{ Name, Value string }

// Part is one part of a multipart form: a field, or a file read from Path.
type Part struct {
	Name, Value string
	Path        string // a file's path; Value is then unused
	Filename    string
	ContentType string
}

// Credentials are a user name and password.
type Credentials struct{ User, Password string }
