package recording

import (
	"bytes"
	"fmt"
	"golang.org/x/net/http/httpguts"
	"net/url"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2/hclwrite"
)

// Options shape the written plan.
type Options struct {
	// Rate is how many sessions start per second; Duration how long.
	Rate     float64
	Duration time.Duration
	// PlanDir is the directory the plan is written to: multipart file
	// paths are written relative to it.
	PlanDir string
}

// skippedHeaders are never written: tressi sets them itself (Host,
// Content-Length), they belong to the connection, not the request, or
// are HTTP/2 pseudo-headers (":authority"), which browsers record.
var skippedHeaders = map[string]bool{
	"host": true, "content-length": true, "connection": true, "keep-alive": true, "transfer-encoding": true,
	"upgrade": true, "te": true, "proxy-connection": true, "trailer": true,
}

// Write writes rec as a plan in HCL. Every value it recognises as a secret
// is a sensitive variable with an empty default: the plan validates and
// runs as written, and the real value is passed with --var.
func Write(rec *Recording, opts Options) ([]byte, error) {
	if opts.Rate <= 0 {
		opts.Rate = 1
	}
	if opts.Duration <= 0 {
		opts.Duration = 10 * time.Second
	}
	w := &writer{opts: opts, targets: map[string]string{}}
	var body bytes.Buffer
	names := map[string]bool{}
	requests := 0
	for _, s := range rec.Sessions {
		name := uniqueName(identifier(s.Name), names)
		requests += len(s.Requests)
		if rec.Single {
			w.endpoint(&body, name, s.Requests[0])
			continue
		}
		w.scenario(&body, name, s)
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "# Imported by tressi from %s: %s", oneLine(rec.Source), plural(requests, "request"))
	if !rec.Single {
		fmt.Fprintf(&out, " in %d scenarios (one per page)", len(rec.Sessions))
	}
	out.WriteString(".\n# Hosts are variables (--var NAME_url=http://...); values that looked secret are sensitive\n" +
		"# variables left empty: pass them with --var NAME=... or TRESSI_VAR_NAME.\n\n")
	for _, v := range append(w.hosts, w.secrets.vars...) {
		fmt.Fprintf(&out, "variable %q {\n", v.Name)
		if v.Description != "" {
			fmt.Fprintf(&out, "description = %s\n", quote(v.Description))
		}
		if v.Sensitive {
			out.WriteString("sensitive = true\n")
		}
		fmt.Fprintf(&out, "default = %s\n}\n\n", quote(v.Default))
	}
	for _, t := range w.targetOrder {
		fmt.Fprintf(&out, "target %q {\nurl = var.%s_url\n", t, t)
		if w.insecure[t] {
			out.WriteString("tls {\ninsecure_skip_verify = true\n}\n")
		}
		out.WriteString("}\n\n")
	}
	out.Write(body.Bytes())
	fmt.Fprintf(&out, "load {\nstage {\nduration = %q\nrate = %s\n}\n}\n", opts.Duration.String(),
		strconv.FormatFloat(opts.Rate, 'f', -1, 64))
	return hclwrite.Format(out.Bytes()), nil
}

type writer struct {
	opts        Options
	hosts       []variable
	targets     map[string]string // origin -> target name
	targetOrder []string
	insecure    map[string]bool
	secrets     secrets
}

// target returns the target of u's origin, declaring it (and its url
// variable) on first sight.
func (w *writer) target(u *url.URL, insecure bool) string {
	origin := u.Scheme + "://" + u.Host
	t, ok := w.targets[origin]
	if !ok {
		taken := map[string]bool{}
		for _, n := range w.targetOrder {
			taken[n] = true
		}
		name := identifier(u.Hostname())
		if h := u.Hostname(); h == "" || !(h[0] >= 'a' && h[0] <= 'z' || h[0] >= 'A' && h[0] <= 'Z') {
			name = identifier("host_" + h) // an address: host_127_0_0_1
		}
		if p := u.Port(); p != "" {
			name += "_" + p
		}
		t = uniqueName(name, taken)
		w.targets[origin] = t
		w.targetOrder = append(w.targetOrder, t)
		w.hosts = append(w.hosts, variable{Name: t + "_url", Default: origin, Description: "the recorded host " + u.Host})
	}
	if insecure && u.Scheme == "https" {
		if w.insecure == nil {
			w.insecure = map[string]bool{}
		}
		w.insecure[t] = true
	}
	return t
}

func (w *writer) endpoint(out *bytes.Buffer, name string, r Request) {
	fmt.Fprintf(out, "endpoint %q {\n", name)
	w.request(out, r)
	out.WriteString("}\n\n")
}

func (w *writer) scenario(out *bytes.Buffer, name string, s Session) {
	fmt.Fprintf(out, "scenario %q {\n# a browser's session: its own connections\nconnection = \"session\"\n", name)
	steps := map[string]bool{}
	var jar cookiesSet
	for i, r := range s.Requests {
		fmt.Fprintf(out, "step %q {\n", uniqueName(fmt.Sprintf("%02d_%s", i+1, endpointName(r)), steps))
		r.Headers = jar.dropFrom(r.Headers, r.URL.Host)
		jar.add(r)
		w.request(out, r)
		if i+1 < len(s.Requests) {
			if think := thinkTime(r, s.Requests[i+1]); think > 0 {
				fmt.Fprintf(out, "think = %q\n", think.String())
			}
		}
		out.WriteString("}\n")
	}
	out.WriteString("}\n\n")
}

// thinkTime is the pause between a request's end and the next one's start
// (none when they overlapped, as a browser's parallel requests do), in
// whole milliseconds.
func thinkTime(r, next Request) time.Duration {
	gap := next.Start.Sub(r.Start.Add(r.Duration))
	return max(gap.Round(time.Millisecond), 0)
}

func (w *writer) request(out *bytes.Buffer, r Request) {
	t := w.target(r.URL, r.Insecure)
	for _, hop := range r.Hops {
		w.target(hop, r.Insecure) // a hop goes only to a target of the plan
	}
	if len(w.targetOrder) > 1 {
		fmt.Fprintf(out, "target = %q\n", t)
	}
	hasBody := len(r.Body) > 0 || len(r.Multipart) > 0
	if r.Method != "GET" || hasBody {
		fmt.Fprintf(out, "method = %q\n", r.Method)
	}
	p := r.URL.EscapedPath()
	if p == "" {
		p = "/"
	}
	pieces := []piece{{lit: p}}
	if r.URL.RawQuery != "" {
		pieces = append(pieces, piece{lit: "?"})
		pieces = append(pieces, queryPieces(r.URL.RawQuery, &w.secrets, "query")...)
	}
	fmt.Fprintf(out, "path = %s\n", template(pieces))
	r.Headers = w.auth(out, r)
	w.headers(out, r)
	if r.Redirects > 0 {
		fmt.Fprintf(out, "redirects = %d\n", r.Redirects)
	}
	switch {
	case len(r.Multipart) > 0:
		w.multipart(out, r.Multipart)
	case len(r.Body) > 0:
		fmt.Fprintf(out, "body = %s\n", w.body(r))
	}
	if r.Status != 0 && (r.Status < 200 || r.Status > 399) {
		fmt.Fprintf(out, "expect {\nstatus = [%d]\n}\n", r.Status)
	}
}

// headers writes the request's headers, one entry per name (repeated
// names joined as HTTP allows, cookies with "; "), secrets as variables.
func (w *writer) headers(out *bytes.Buffer, r Request) {
	var order []string
	values := map[string][]string{}
	names := map[string]string{}
	for _, h := range r.Headers {
		key := strings.ToLower(h.Name)
		if skippedHeaders[key] || strings.HasPrefix(h.Name, ":") ||
			(len(r.Multipart) > 0 && key == "content-type") {
			continue
		}
		if !httpguts.ValidHeaderFieldName(h.Name) || strings.ContainsAny(h.Value, "\r\n") {
			fmt.Fprintf(out, "# left out: a header HTTP/1.1 cannot carry (%s)\n", strings.Trim(quote(h.Name), `"`))
			continue
		}
		if _, seen := values[key]; !seen {
			order = append(order, key)
			names[key] = h.Name
		}
		values[key] = append(values[key], h.Value)
	}
	var lines []string
	for _, key := range order {
		sep := ", "
		if key == "cookie" {
			sep = "; "
		}
		value := strings.Join(values[key], sep)
		v := quote(value)
		if isSecretHeader(key) && value != "" {
			v = "var." + w.secrets.name(key, value, "header "+names[key])
		}
		lines = append(lines, fmt.Sprintf("%s = %s", quote(names[key]), v))
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(out, "headers = {\n%s\n}\n", strings.Join(lines, "\n"))
}

// body writes a recorded body as a template: JSON and form bodies with
// their secret fields as variables, anything else as recorded.
func (w *writer) body(r Request) string {
	b := string(r.Body)
	if !utf8.ValidString(b) {
		return quote(b) // HAR and curl bodies are text; quote escapes what is not
	}
	ctype := strings.ToLower(headerValue(r.Headers, "Content-Type"))
	switch {
	case strings.Contains(ctype, "json"):
		if ps, ok := jsonPieces(b, &w.secrets); ok {
			return template(ps)
		}
	case strings.HasPrefix(ctype, "application/x-www-form-urlencoded"):
		return template(queryPieces(b, &w.secrets, "body"))
	}
	return template([]piece{{lit: b}})
}

func (w *writer) multipart(out *bytes.Buffer, parts []Part) {
	out.WriteString("multipart {\n")
	for _, p := range parts {
		if p.Path == "" {
			v := quote(p.Value)
			if secretName.MatchString(p.Name) && p.Value != "" {
				v = "var." + w.secrets.name("form_"+p.Name, p.Value, "form field "+p.Name)
			}
			fmt.Fprintf(out, "field %q {\nvalue = %s\n}\n", p.Name, v)
			continue
		}
		rel := p.Path
		if w.opts.PlanDir != "" {
			if abs, err := filepath.Abs(p.Path); err == nil {
				if dir, err := filepath.Abs(w.opts.PlanDir); err == nil {
					if r, err := filepath.Rel(dir, abs); err == nil {
						rel = r
					}
				}
			}
		}
		fmt.Fprintf(out, "file %q {\npath = %s\n", p.Name, quote(filepath.ToSlash(rel)))
		if p.Filename != "" && p.Filename != path.Base(filepath.ToSlash(p.Path)) {
			fmt.Fprintf(out, "filename = %s\n", quote(p.Filename))
		}
		if p.ContentType != "" {
			fmt.Fprintf(out, "content_type = %s\n", quote(p.ContentType))
		}
		out.WriteString("}\n")
	}
	out.WriteString("}\n")
}

// endpointName names a request by its method and last path segment.
func endpointName(r Request) string {
	seg := path.Base(r.URL.Path)
	if seg == "/" || seg == "." || seg == "" {
		seg = "root"
	}
	return identifier(strings.ToLower(r.Method) + "_" + seg)
}

// uniqueName returns name, or name_2, name_3, ... when taken, and takes it.
func uniqueName(name string, taken map[string]bool) string {
	n := name
	for i := 2; taken[n]; i++ {
		n = name + "_" + strconv.Itoa(i)
	}
	taken[n] = true
	return n
}

// template writes pieces as one HCL quoted template.
func template(ps []piece) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, p := range ps {
		if p.expr != "" {
			b.WriteString("${" + p.expr + "}")
			continue
		}
		b.WriteString(escape(p.lit))
	}
	b.WriteByte('"')
	return b.String()
}

// quote writes s as an HCL quoted string with no interpolation.
func quote(s string) string { return `"` + escape(s) + `"` }

// escape escapes literal text for an HCL quoted string: quotes,
// backslashes, control characters, and the template introducers ${ and %{.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case (r == '$' || r == '%') && i+1 < len(s) && s[i+1] == '{':
			b.WriteRune(r)
			b.WriteRune(r)
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\uFFFD`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
