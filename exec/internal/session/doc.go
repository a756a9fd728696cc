// Package session holds what a session's steps read from answers: captures
// (JSON paths, headers, regular expressions), the JSON frame scanner, and
// the marks that time WebSocket deliveries.
package session
