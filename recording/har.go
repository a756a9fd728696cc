package recording

import (
	"encoding/json"
	"fmt"
	"golang.org/x/net/http/httpguts"
	"io"
	"net/url"
	"sort"
	"strings"
	"time"
)

// The parts of HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/)
// an import needs; Chromium and Firefox both write them, with their own
// extra fields (ignored, except Chromium's _fromCache).
type harFile struct {
	Log struct {
		Creator struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"creator"`
		Pages   []harPage  `json:"pages"`
		Entries []harEntry `json:"entries"`
	} `json:"log"`
}

type harPage struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

type harEntry struct {
	PageRef         string  `json:"pageref"`
	StartedDateTime string  `json:"startedDateTime"`
	Time            float64 `json:"time"` // ms, the whole exchange
	Request         struct {
		Method   string      `json:"method"`
		URL      string      `json:"url"`
		Headers  []harHeader `json:"headers"`
		PostData *struct {
			MimeType string      `json:"mimeType"`
			Text     string      `json:"text"`
			Params   []harHeader `json:"params"` // a form's fields, when text is missing
		} `json:"postData"`
	} `json:"request"`
	Response struct {
		Status      int         `json:"status"`
		Headers     []harHeader `json:"headers"`
		Cookies     []harHeader `json:"cookies"` // what Set-Cookie set, by name and value
		RedirectURL string      `json:"redirectURL"`
	} `json:"response"`
	FromCache string `json:"_fromCache"` // Chromium: "memory" or "disk" when no request went out
}

type harHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// MaxHAR bounds the HAR file read: recordings of a few pages are far
// smaller, and a mistaken file should not exhaust memory.
const MaxHAR = 256 << 20

// ParseHAR reads a HAR file: a session per page (in the order the pages
// were recorded), each with its entries in the order they started, and one
// more session, "requests", for entries outside any page. Entries served
// from the browser's cache, and those not over http or https, sent nothing
// and are left out.
func ParseHAR(r io.Reader, source string) (*Recording, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxHAR+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxHAR {
		return nil, fmt.Errorf("%s is larger than %d MiB; export fewer pages", source, MaxHAR>>20)
	}
	var f harFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s is not a HAR file (JSON with a log.entries list): %v", source, err)
	}
	rec := &Recording{Source: source}
	if c := f.Log.Creator; c.Name != "" {
		rec.Source += " (" + strings.TrimSpace(c.Name+" "+c.Version) + ")"
	}
	index := map[string]int{}
	for _, p := range f.Log.Pages {
		if _, dup := index[p.ID]; dup {
			continue
		}
		index[p.ID] = len(rec.Sessions)
		name := p.Title
		if name == "" {
			name = p.ID
		}
		rec.Sessions = append(rec.Sessions, Session{Name: name})
	}
	loose := -1
	for i, e := range f.Log.Entries {
		req, ok, err := harRequest(e)
		if err != nil {
			return nil, fmt.Errorf("%s: entry %d: %v", source, i+1, err)
		}
		if !ok {
			continue
		}
		s, paged := index[e.PageRef]
		if !paged {
			if loose < 0 {
				loose = len(rec.Sessions)
				rec.Sessions = append(rec.Sessions, Session{Name: "requests"})
			}
			s = loose
		}
		rec.Sessions[s].Requests = append(rec.Sessions[s].Requests, req)
	}
	kept := rec.Sessions[:0]
	for _, s := range rec.Sessions {
		if len(s.Requests) > 0 {
			sort.SliceStable(s.Requests, func(i, j int) bool { return s.Requests[i].Start.Before(s.Requests[j].Start) })
			s.Requests = foldRedirects(s.Requests)
			kept = append(kept, s)
		}
	}
	rec.Sessions = kept
	if len(rec.Sessions) == 0 {
		return nil, fmt.Errorf("%s records no http or https request that went out (%d entries); record the page again with the network panel open", source, len(f.Log.Entries))
	}
	return rec, nil
}

// harRequest converts one entry; ok is false for an entry that sent nothing.
func harRequest(e harEntry) (Request, bool, error) {
	if e.FromCache != "" {
		return Request{}, false, nil
	}
	u, err := url.Parse(e.Request.URL)
	if err != nil {
		return Request{}, false, fmt.Errorf("url %q: %v", e.Request.URL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return Request{}, false, nil
	}
	start, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
	if err != nil {
		return Request{}, false, fmt.Errorf("startedDateTime %q is not an RFC 3339 time", e.StartedDateTime)
	}
	req := Request{Method: strings.ToUpper(e.Request.Method), URL: u, Status: e.Response.Status, Start: start,
		Duration: time.Duration(max(e.Time, 0) * float64(time.Millisecond))}
	if req.Method == "" {
		req.Method = "GET"
	}
	if !httpguts.ValidHeaderFieldName(req.Method) {
		return Request{}, false, fmt.Errorf("method %q is not an HTTP method, such as GET or POST", req.Method)
	}
	for _, h := range e.Request.Headers {
		req.Headers = append(req.Headers, Header{Name: h.Name, Value: h.Value})
	}
	req.Location = e.Response.RedirectURL
	for _, h := range e.Response.Headers {
		switch strings.ToLower(h.Name) {
		case "location":
			req.Location = h.Value
		case "set-cookie":
			// Chromium joins a response's Set-Cookie lines with newlines.
			for _, line := range strings.Split(h.Value, "\n") {
				if pair, _, _ := strings.Cut(line, ";"); strings.Contains(pair, "=") {
					req.SetCookies = append(req.SetCookies, strings.TrimSpace(pair))
				}
			}
		}
	}
	if len(req.SetCookies) == 0 {
		for _, c := range e.Response.Cookies {
			req.SetCookies = append(req.SetCookies, c.Name+"="+c.Value)
		}
	}
	if pd := e.Request.PostData; pd != nil {
		req.Body = []byte(pd.Text)
		if pd.Text == "" && len(pd.Params) > 0 && strings.HasPrefix(pd.MimeType, "application/x-www-form-urlencoded") {
			var b strings.Builder
			for i, p := range pd.Params {
				if i > 0 {
					b.WriteByte('&')
				}
				b.WriteString(url.QueryEscape(p.Name) + "=" + url.QueryEscape(p.Value))
			}
			req.Body = []byte(b.String())
		}
		if pd.MimeType != "" && headerValue(req.Headers, "Content-Type") == "" {
			req.Headers = append(req.Headers, Header{Name: "Content-Type", Value: pd.MimeType})
		}
	}
	return req, true, nil
}

// headerValue returns the first value of the named header, or "".
func headerValue(hs []Header, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}
