package plan

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
)

// decodeTLSBlock reads a target's tls block into t. The files it names are
// checked now (readable, PEM, a key that matches its certificate), so a
// typo is a located plan error instead of a run whose every request fails.
func (l *loader) decodeTLSBlock(t *Target, b *hcl.Block) hcl.Diagnostics {
	content, diags := b.Body.Content(tlsSchema)
	attrs := content.Attributes
	t.TLS.DeclRange = b.DefRange
	skip, set, d := l.boolAttr(attrs, "insecure_skip_verify")
	diags = append(diags, d...)
	t.InsecureSkipVerify = skip
	if set && skip {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Certificates are not verified",
			Detail: fmt.Sprintf("target %q has insecure_skip_verify = true: any server, or anyone in the path, is accepted as this target. "+
				"Trust a private CA with ca_file instead; the run records insecure_skip_verify in meta.json.", t.Name),
			Subject: attrs["insecure_skip_verify"].Expr.Range().Ptr()})
	}
	resume, set, d := l.boolAttr(attrs, "session_resumption")
	diags = append(diags, d...)
	t.TLS.NoResumption = set && !resume

	// An empty string leaves a setting unset, so a plan can pass these
	// through variables whose default is "".
	t.TLS.ServerName, _, d = l.stringAttr(attrs, "server_name")
	diags = append(diags, d...)
	t.TLS.MinVersion, d = l.enumAttr(attrs, "min_version", TLSVersions...)
	diags = append(diags, d...)
	t.TLS.MaxVersion, d = l.enumAttr(attrs, "max_version", TLSVersions...)
	diags = append(diags, d...)
	if t.TLS.MinVersion != "" && t.TLS.MaxVersion != "" && t.TLS.MinVersion > t.TLS.MaxVersion {
		diags = append(diags, attrError(attrs["max_version"], "Invalid max_version",
			fmt.Sprintf("max_version %q is below min_version %q.", t.TLS.MaxVersion, t.TLS.MinVersion)))
	}

	diags = append(diags, l.caFile(t, attrs)...)
	diags = append(diags, l.clientCert(t, attrs, b)...)
	// A block whose every setting is empty (variables left at "", as
	// examples/http2.hcl passes them for h2c) has nothing to ignore.
	blank := t.TLS == TLS{DeclRange: t.TLS.DeclRange} && !t.InsecureSkipVerify
	if t.URL != nil && (t.URL.Scheme == "http" || t.URL.Scheme == "ws" || t.URL.Scheme == "grpc") && !blank {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "tls block on a plain http target",
			Detail:  fmt.Sprintf("target %q speaks plain %s, so its tls block has no effect; use an https:// (or wss://) url to use TLS.", t.Name, t.URL.Scheme),
			Subject: b.DefRange.Ptr()})
	}
	return diags
}

// caFile reads ca_file: the certificates trusted instead of the system's.
func (l *loader) caFile(t *Target, attrs hcl.Attributes) hcl.Diagnostics {
	raw, attr, diags := l.stringAttr(attrs, "ca_file")
	if attr == nil || raw == "" || diags.HasErrors() {
		return diags
	}
	path, check := l.tlsPath(raw)
	t.TLS.CAFile = path
	if !check {
		return diags
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		return append(diags, attrError(attr, "Cannot read ca_file", fmt.Sprintf("%v. The path is relative to the plan file's directory.", err)))
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pem) {
		return append(diags, attrError(attr, "Invalid ca_file",
			fmt.Sprintf("%s holds no PEM certificate (\"-----BEGIN CERTIFICATE-----\"); point ca_file at the CA's certificate in PEM form.", path)))
	}
	return diags
}

// clientCert reads cert_file and key_file, which come together: the
// certificate tressi presents to servers that ask for one (mutual TLS).
func (l *loader) clientCert(t *Target, attrs hcl.Attributes, b *hcl.Block) hcl.Diagnostics {
	cert, certAttr, diags := l.stringAttr(attrs, "cert_file")
	key, keyAttr, d := l.stringAttr(attrs, "key_file")
	diags = append(diags, d...)
	if cert == "" {
		certAttr = nil
	}
	if key == "" {
		keyAttr = nil
	}
	if diags.HasErrors() || (certAttr == nil && keyAttr == nil) {
		return diags
	}
	if certAttr == nil || keyAttr == nil {
		return append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Incomplete client certificate",
			Detail:  "cert_file and key_file come together: set both (the certificate chain and its private key, in PEM) or neither.",
			Subject: b.DefRange.Ptr()})
	}
	certPath, check := l.tlsPath(cert)
	keyPath, _ := l.tlsPath(key)
	t.TLS.CertFile, t.TLS.KeyFile = certPath, keyPath
	if !check {
		return diags
	}
	for _, f := range []struct {
		attr *hcl.Attribute
		path string
	}{{certAttr, certPath}, {keyAttr, keyPath}} {
		if _, err := os.Stat(f.path); err != nil {
			return append(diags, attrError(f.attr, "Cannot read "+f.attr.Name,
				fmt.Sprintf("%v. The path is relative to the plan file's directory.", err)))
		}
	}
	if _, err := tls.LoadX509KeyPair(certPath, keyPath); err != nil {
		return append(diags, attrError(keyAttr, "Invalid client certificate",
			fmt.Sprintf("%s and %s are not a PEM certificate and its private key: %v.", certPath, keyPath, err)))
	}
	return diags
}

// tlsPath resolves a TLS file's path against the plan's directory. The files
// are read from the operating system, not the plan's sources: a private key
// must never be copied into a .tplan. When the plan itself comes from
// stored sources (a replay) the path is kept as written and checked when
// the run starts.
func (l *loader) tlsPath(raw string) (string, bool) {
	if _, ok := l.src.(osSource); !ok {
		return raw, false
	}
	p := l.resolve(raw)
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p, true
}
