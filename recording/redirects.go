package recording

import (
	"net/url"

	"github.com/tressi/tressi/plan"
)

// A browser records each hop of a redirect as an entry of its own: the
// 3xx, then the request to its Location. tressi follows redirects itself
// (redirects = N), so a chain becomes one step, the first request's, with
// redirects set to its hops; the replay then sends the hops the server
// asks for, not the ones it asked for when recorded.

// foldRedirects folds each chain of reqs (a 3xx whose Location the next
// request asks for) into its first request.
func foldRedirects(reqs []Request) []Request {
	out := reqs[:0]
	for i := 0; i < len(reqs); i++ {
		r := reqs[i]
		for i+1 < len(reqs) && leadsTo(r, reqs[i+1]) && r.Redirects < plan.MaxRedirects {
			next := reqs[i+1]
			r.Redirects++
			r.Hops = append(r.Hops, next.URL)
			r.Status, r.Location = next.Status, next.Location
			r.SetCookies = append(r.SetCookies, next.SetCookies...)
			r.Duration = next.Start.Add(next.Duration).Sub(r.Start)
			i++
		}
		out = append(out, r)
	}
	return out
}

// leadsTo says whether next is the hop r's redirect asked for: r's answer
// is a redirect with a Location that, resolved against r's URL, is next's
// URL.
func leadsTo(r, next Request) bool {
	switch r.Status {
	case 301, 302, 303, 307, 308:
	default:
		return false
	}
	if r.Location == "" {
		return false
	}
	loc, err := url.Parse(r.Location)
	if err != nil {
		return false
	}
	to := r.URL.ResolveReference(loc)
	to.Fragment, to.RawFragment = "", ""
	at := *next.URL
	at.Fragment, at.RawFragment = "", ""
	return to.String() == at.String()
}
