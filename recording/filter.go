package recording

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// KeepHosts keeps only the requests to hosts matching one of patterns
// (path.Match globs, tried on the host and on host:port: "*.shop.example",
// "127.0.0.1:8080"), so a recorded page's CDN and
// analytics calls need not become load on servers that are not yours.
// Sessions left without requests are dropped.
func KeepHosts(rec *Recording, patterns []string) error {
	for _, p := range patterns {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("--host %q is not a valid pattern: %v", p, err)
		}
	}
	all := Hosts(rec)
	kept := rec.Sessions[:0]
	for _, s := range rec.Sessions {
		reqs := s.Requests[:0]
		for _, r := range s.Requests {
			if hostMatches(r.URL.Host, r.URL.Hostname(), patterns) {
				reqs = append(reqs, r)
			}
		}
		if s.Requests = reqs; len(reqs) > 0 {
			kept = append(kept, s)
		}
	}
	if len(kept) == 0 {
		return fmt.Errorf("no recorded request goes to a host matching %s; the recording's hosts are: %s",
			strings.Join(patterns, ", "), strings.Join(all, ", "))
	}
	rec.Sessions = kept
	return nil
}

// hostMatches tries each pattern on the bare host and on host:port.
func hostMatches(hostPort, host string, patterns []string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, host); ok {
			return true
		}
		if ok, _ := path.Match(p, hostPort); ok {
			return true
		}
	}
	return false
}

// Hosts lists the hosts (host:port as recorded) the recording sends to.
func Hosts(rec *Recording) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range rec.Sessions {
		for _, r := range s.Requests {
			if !seen[r.URL.Host] {
				seen[r.URL.Host] = true
				out = append(out, r.URL.Host)
			}
		}
	}
	sort.Strings(out)
	return out
}
