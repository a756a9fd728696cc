package compile

import (
	"net"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/tressi/tressi/plan"
)

// resolveTarget turns a plan target's URL into what the executor dials and
// sends: the address with its default port, the Host header, and the base
// path every request path of this target is prefixed with.
func resolveTarget(t *plan.Target) (Target, string, hcl.Diagnostics) {
	out := Target{
		Name:               t.Name,
		Connections:        t.Connections,
		Connection:         t.Connection,
		Timeout:            t.Timeout,
		ConnectTimeout:     t.ConnectTimeout,
		InsecureSkipVerify: t.InsecureSkipVerify,
		SourceAddresses:    t.SourceAddresses,
		TLS: TargetTLS{CAFile: t.TLS.CAFile, CertFile: t.TLS.CertFile, KeyFile: t.TLS.KeyFile, ServerName: t.TLS.ServerName,
			MinVersion: t.TLS.MinVersion, MaxVersion: t.TLS.MaxVersion, NoResumption: t.TLS.NoResumption},
		MaxStreams: t.MaxStreams,
	}
	if t.Protocol != plan.ProtocolHTTP1 {
		out.Protocol = t.Protocol
	}
	if out.Connections <= 0 {
		out.Connections = plan.DefaultConnections
	}
	if out.Connection == "" {
		out.Connection = plan.ConnectionPool
	}
	if out.Timeout <= 0 {
		out.Timeout = plan.DefaultTimeout
	}
	if out.ConnectTimeout <= 0 {
		out.ConnectTimeout = plan.DefaultConnectTimeout
	}
	u := t.URL
	if u == nil {
		return out, "", errorAt(t.DeclRange, "Target has no URL",
			"target "+quote(t.Name)+" needs a url such as \"http://127.0.0.1:8080\".")
	}
	out.Scheme = strings.ToLower(u.Scheme)
	// ws:// and wss:// name the same server as http:// and https://: HTTP
	// steps use those, WebSocket connects upgrade over them.
	switch out.Scheme {
	case "ws", "grpc":
		out.Scheme = "http"
	case "wss", "grpcs":
		out.Scheme = "https"
	}
	defPort := ""
	switch out.Scheme {
	case "http":
		defPort = "80"
	case "https":
		defPort = "443"
	default:
		return out, "", errorAt(t.DeclRange, "Unsupported target scheme",
			"target "+quote(t.Name)+" has scheme "+quote(u.Scheme)+"; use http or https.")
	}
	host := u.Hostname()
	if host == "" {
		return out, "", errorAt(t.DeclRange, "Target URL has no host",
			"target "+quote(t.Name)+" url "+quote(u.String())+" names no host.")
	}
	port := u.Port()
	if port == "" {
		port = defPort
	}
	out.Addr = net.JoinHostPort(host, port)
	// The Host header carries the port only when it is not the scheme's
	// default, as browsers and curl send it; servers routing on Host expect that.
	if port == defPort {
		out.Host = host
		if strings.Contains(host, ":") {
			out.Host = "[" + host + "]"
		}
	} else {
		out.Host = out.Addr
	}
	if ip, ok := t.Resolve[strings.ToLower(host)]; ok {
		// resolve: connect to the address given; Host and TLS's server
		// name (the Host's name) stay the url's.
		out.Addr = net.JoinHostPort(ip, port)
	}
	base := strings.TrimSuffix(u.EscapedPath(), "/")
	return out, base, nil
}

func errorAt(rng hcl.Range, summary, detail string) hcl.Diagnostics {
	r := rng
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: &r}}
}

func warningAt(rng hcl.Range, summary, detail string) hcl.Diagnostics {
	r := rng
	return hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: summary, Detail: detail, Subject: &r}}
}

func quote(s string) string { return "\"" + s + "\"" }
