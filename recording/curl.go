package recording

import (
	"fmt"
	"golang.org/x/net/http/httpguts"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tressi/tressi/plan"
)

// curlOption says what one of curl's options takes and does.
type curlOption struct {
	arg bool // takes a value
	do  func(c *curlCommand, v string) error
}

// curlCommand is a curl command line being read.
type curlCommand struct {
	req       Request
	url       string
	data      []string // -d and friends, joined with & as curl does
	get       bool     // -G: data goes into the query
	head      bool     // -I
	method    string   // -X
	location  bool     // -L: follow redirects, up to maxRedirs
	maxRedirs int      // --max-redirs; -1 (unset, or curl's unlimited): plan.MaxRedirects
	dir       string   // where @file arguments are read from
	readFile  func(string) ([]byte, error)
}

// curlOptions are the options an import understands; long names map to
// the same entries as short ones. Options that change only curl's own
// output or behaviour are accepted and ignored (curlIgnored).
var curlOptions = map[string]curlOption{
	"-X":               {true, func(c *curlCommand, v string) error { c.method = strings.ToUpper(v); return nil }},
	"-H":               {true, (*curlCommand).header},
	"-d":               {true, func(c *curlCommand, v string) error { return c.addData(v, true, false) }},
	"--data-ascii":     {true, func(c *curlCommand, v string) error { return c.addData(v, true, false) }},
	"--data-binary":    {true, func(c *curlCommand, v string) error { return c.addData(v, false, false) }},
	"--data-raw":       {true, func(c *curlCommand, v string) error { c.data = append(c.data, v); return nil }},
	"--data-urlencode": {true, func(c *curlCommand, v string) error { return c.addData(v, false, true) }},
	"--json": {true, func(c *curlCommand, v string) error {
		c.setDefaultHeader("Content-Type", "application/json")
		c.setDefaultHeader("Accept", "application/json")
		return c.addData(v, false, false)
	}},
	"-F": {true, (*curlCommand).form},
	"-u": {true, func(c *curlCommand, v string) error {
		user, pass, _ := strings.Cut(v, ":")
		c.req.Basic = &Credentials{User: user, Password: pass}
		return nil
	}},
	"-b": {true, func(c *curlCommand, v string) error {
		if !strings.Contains(v, "=") {
			return fmt.Errorf("-b %s reads cookies from a file, which an import cannot: pass them as -b 'name=value'", v)
		}
		c.req.Headers = append(c.req.Headers, Header{Name: "Cookie", Value: v})
		return nil
	}},
	"-A": {true, func(c *curlCommand, v string) error { c.setHeader("User-Agent", v); return nil }},
	"-e": {true, func(c *curlCommand, v string) error { c.setHeader("Referer", v); return nil }},
	"-G": {false, func(c *curlCommand, _ string) error { c.get = true; return nil }},
	"-I": {false, func(c *curlCommand, _ string) error { c.head = true; return nil }},
	"-k": {false, func(c *curlCommand, _ string) error { c.req.Insecure = true; return nil }},
	"-L": {false, func(c *curlCommand, _ string) error { c.location = true; return nil }},
	"--max-redirs": {true, func(c *curlCommand, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("--max-redirs %q is not a whole number", v)
		}
		c.maxRedirs = n
		return nil
	}},
	"--digest": {false, func(c *curlCommand, _ string) error { c.req.Digest = true; return nil }},
	"--url":    {true, func(c *curlCommand, v string) error { c.url = v; return nil }},
	"--compressed": {false, func(c *curlCommand, _ string) error {
		c.setDefaultHeader("Accept-Encoding", "deflate, gzip, br, zstd")
		return nil
	}},
}

var curlLong = map[string]string{
	"--request": "-X", "--header": "-H", "--data": "-d", "--form": "-F", "--user": "-u",
	"--cookie": "-b", "--user-agent": "-A", "--referer": "-e", "--get": "-G", "--head": "-I",
	"--insecure": "-k", "--location": "-L",
}

// curlIgnored change what curl prints or how it runs, not what it sends;
// the bool says whether the option takes a value.
var curlIgnored = map[string]bool{
	"-s": false, "--silent": false, "-S": false, "--show-error": false, "-v": false, "--verbose": false,
	"-i": false, "--include": false, "-f": false, "--fail": false,
	"--fail-with-body": false, "-N": false, "--no-buffer": false, "-#": false, "--progress-bar": false,
	"--http1.1": false, "--globoff": false, "-g": false,
	"-o": true, "--output": true, "-w": true, "--write-out": true, "-m": true, "--max-time": true,
	"--connect-timeout": true, "--retry": true,
}

// ParseCurl reads a curl command line (as "Copy as cURL" writes it, or as
// typed) into a one-request recording. dir is where @file arguments are
// read from.
func ParseCurl(command, dir string) (*Recording, error) {
	words, err := shellWords(command)
	if err != nil {
		return nil, fmt.Errorf("cannot split the curl command: %v", err)
	}
	if len(words) == 0 || filepath.Base(words[0]) != "curl" {
		return nil, fmt.Errorf("not a curl command: it should start with curl, such as curl 'https://api.example/items' -H 'Accept: application/json'")
	}
	c := &curlCommand{dir: dir, readFile: os.ReadFile, maxRedirs: -1}
	if err := c.parse(words[1:]); err != nil {
		return nil, err
	}
	req, err := c.request()
	if err != nil {
		return nil, err
	}
	return &Recording{Source: "a curl command", Sessions: []Session{{Name: endpointName(req), Requests: []Request{req}}}, Single: true}, nil
}

func (c *curlCommand) parse(args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			if c.url != "" {
				return fmt.Errorf("two URLs (%s and %s): an import reads one request; split the command", c.url, a)
			}
			c.url = a
			continue
		}
		name, value, hasValue := a, "", false
		if strings.HasPrefix(a, "--") {
			name, value, hasValue = strings.Cut(a, "=")
			if long, ok := curlLong[name]; ok {
				name = long
			}
		} else if len(a) > 2 {
			// -XPOST, -HName:v, or flags run together as in -sSL.
			if opt, ok := curlOptions[a[:2]]; ok && opt.arg {
				name, value, hasValue = a[:2], a[2:], true
			} else if takes, ok := curlIgnored[a[:2]]; ok && takes {
				continue
			} else {
				for _, f := range a[1:] {
					if err := c.apply("-"+string(f), "", false, nil, &i); err != nil {
						return err
					}
				}
				continue
			}
		}
		if err := c.apply(name, value, hasValue, args, &i); err != nil {
			return err
		}
	}
	return nil
}

// apply runs one option; one that takes a value without an inline one
// consumes the next argument.
func (c *curlCommand) apply(name, value string, hasValue bool, args []string, i *int) error {
	if takes, ok := curlIgnored[name]; ok {
		if takes && !hasValue {
			*i++
		}
		return nil
	}
	opt, ok := curlOptions[name]
	if !ok {
		return fmt.Errorf("curl option %s is not one an import understands; remove it, or write that part of the plan by hand (docs/plan.md, import)", name)
	}
	if opt.arg && !hasValue {
		if args == nil || *i+1 >= len(args) {
			return fmt.Errorf("curl option %s needs a value", name)
		}
		*i++
		value = args[*i]
	}
	return opt.do(c, value)
}

func (c *curlCommand) header(v string) error {
	name, value, ok := strings.Cut(v, ":")
	if !ok {
		if n, isEmpty := strings.CutSuffix(v, ";"); isEmpty { // -H 'X-Empty;' sends an empty header
			c.req.Headers = append(c.req.Headers, Header{Name: n})
			return nil
		}
		return fmt.Errorf("-H %q is not a header: write it as 'Name: value'", v)
	}
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if value == "" { // -H 'Name:' removes a header curl would send: nothing to send
		return nil
	}
	c.req.Headers = append(c.req.Headers, Header{Name: name, Value: value})
	return nil
}

func (c *curlCommand) setHeader(name, value string) {
	for i := range c.req.Headers {
		if strings.EqualFold(c.req.Headers[i].Name, name) {
			c.req.Headers[i].Value = value
			return
		}
	}
	c.req.Headers = append(c.req.Headers, Header{Name: name, Value: value})
}

func (c *curlCommand) setDefaultHeader(name, value string) {
	if headerValue(c.req.Headers, name) == "" {
		c.req.Headers = append(c.req.Headers, Header{Name: name, Value: value})
	}
}

// addData is -d (strip newlines of @file, as curl does), --data-binary
// (as is) or --data-urlencode (name=value with the value encoded).
func (c *curlCommand) addData(v string, stripNewlines, encode bool) error {
	if encode {
		name, value, hasName := strings.Cut(v, "=")
		if !hasName {
			name, value = "", v
		}
		if strings.HasPrefix(value, "@") {
			b, err := c.file(value[1:])
			if err != nil {
				return err
			}
			value = string(b)
		}
		v = url.QueryEscape(value)
		if name != "" {
			v = name + "=" + v
		}
		c.data = append(c.data, v)
		return nil
	}
	if strings.HasPrefix(v, "@") {
		b, err := c.file(v[1:])
		if err != nil {
			return err
		}
		v = string(b)
		if stripNewlines {
			v = strings.NewReplacer("\r", "", "\n", "").Replace(v)
		}
	}
	c.data = append(c.data, v)
	return nil
}

func (c *curlCommand) file(name string) ([]byte, error) {
	if name == "-" {
		return nil, fmt.Errorf("@- reads standard input, which an import cannot: save the body to a file and name it")
	}
	b, err := c.readFile(filepath.Join(c.dir, name))
	if err != nil {
		return nil, fmt.Errorf("cannot read the body file %s: %v", name, err)
	}
	return b, nil
}

// form is -F name=value, name=@file (a file part) or name=<file (a field
// read from a file), with ;type= and ;filename= as curl takes them.
func (c *curlCommand) form(v string) error {
	name, value, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("-F %q is not a form part: write it as name=value or name=@file", v)
	}
	p := Part{Name: name}
	if rest, isFile := strings.CutPrefix(value, "@"); isFile {
		fields := strings.Split(rest, ";")
		p.Path, p.Filename = filepath.Join(c.dir, fields[0]), filepath.Base(fields[0])
		for _, f := range fields[1:] {
			k, val, _ := strings.Cut(f, "=")
			switch strings.TrimSpace(k) {
			case "type":
				p.ContentType = val
			case "filename":
				p.Filename = strings.Trim(val, `"`)
			}
		}
		if _, err := os.Stat(p.Path); err != nil {
			return fmt.Errorf("cannot read the form file %s: %v", fields[0], err)
		}
	} else if rest, fromFile := strings.CutPrefix(value, "<"); fromFile {
		b, err := c.file(rest)
		if err != nil {
			return err
		}
		p.Value = string(b)
	} else {
		p.Value = value
	}
	c.req.Multipart = append(c.req.Multipart, p)
	return nil
}

// request is the request the command sends, as curl would build it.
func (c *curlCommand) request() (Request, error) {
	if c.url == "" {
		return Request{}, fmt.Errorf("the curl command names no URL")
	}
	raw := c.url
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw // curl's default scheme
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return Request{}, fmt.Errorf("%q is not an http or https URL", c.url)
	}
	req := c.req
	req.URL = u
	if len(req.Multipart) > 0 && len(c.data) > 0 {
		return Request{}, fmt.Errorf("the command sends both -F and -d: curl refuses that too; keep one")
	}
	body := strings.Join(c.data, "&")
	switch {
	case c.get && body != "":
		if u.RawQuery != "" {
			u.RawQuery += "&"
		}
		u.RawQuery += body
		req.Method = "GET"
	case body != "":
		req.Body = []byte(body)
		req.Method = "POST"
		c.setDefaultHeaderOn(&req, "Content-Type", "application/x-www-form-urlencoded")
	case len(req.Multipart) > 0:
		req.Method = "POST"
	case c.head:
		req.Method = "HEAD"
	default:
		req.Method = "GET"
	}
	if c.method != "" {
		req.Method = c.method
	}
	if !httpguts.ValidHeaderFieldName(req.Method) {
		return Request{}, fmt.Errorf("-X %q is not an HTTP method, such as GET or POST", req.Method)
	}
	if req.Digest && req.Basic == nil {
		return Request{}, fmt.Errorf("--digest answers with -u's credentials: add -u user:password")
	}
	if c.location {
		// curl follows 50 by default; a plan follows at most plan.MaxRedirects.
		req.Redirects = plan.MaxRedirects
		if c.maxRedirs >= 0 && c.maxRedirs < plan.MaxRedirects {
			req.Redirects = c.maxRedirs
		}
	}
	return req, nil
}

func (c *curlCommand) setDefaultHeaderOn(r *Request, name, value string) {
	if headerValue(r.Headers, name) == "" {
		r.Headers = append(r.Headers, Header{Name: name, Value: value})
	}
}
