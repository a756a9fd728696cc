package plan

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// credentialsType is basic_auth's value: { username = "...", password = "..." }.
var credentialsType = cty.Object(map[string]cty.Type{"username": cty.String, "password": cty.String})

// Credentials are a user's name and password for HTTP authentication.
type Credentials struct {
	Username, Password string
}

// decodeCredentials reads basic_auth or digest_auth: an object with a
// username and a password, fixed for the run. The password is a secret
// whatever its origin: it is cut out of every sample, detail and message,
// as a sensitive variable's text is. nil when the attribute is absent or
// wrong (with a diagnostic).
func (l *loader) decodeCredentials(attr *hcl.Attribute, what string) (*Credentials, hcl.Diagnostics) {
	v, diags := l.eval(attr.Expr, scope{what: what + " " + attr.Name})
	if diags.HasErrors() || v.IsNull() || !v.IsWhollyKnown() {
		return nil, diags
	}
	v, _ = v.UnmarkDeep()
	cv, err := convert.Convert(v, credentialsType)
	if err != nil || cv.GetAttr("username").IsNull() || cv.GetAttr("password").IsNull() {
		return nil, append(diags, attrError(attr, "Invalid "+attr.Name, attr.Name+" must be an object with a username and a password, such as { username = \"alice\", password = var.password }."))
	}
	c := &Credentials{Username: cv.GetAttr("username").AsString(), Password: cv.GetAttr("password").AsString()}
	if strings.Contains(c.Username, ":") && attr.Name == "basic_auth" {
		return nil, append(diags, attrError(attr, "Invalid basic_auth", "basic_auth's username cannot hold a ':' (RFC 7617: the first ':' ends the user id)."))
	}
	if strings.ContainsAny(c.Username+c.Password, "\r\n") {
		return nil, append(diags, attrError(attr, "Invalid "+attr.Name, attr.Name+"'s username and password cannot hold a line break."))
	}
	l.secrets.addText(c.Password)
	return c, diags
}

// decodeAuth reads basic_auth and digest_auth on a target, an endpoint or
// a step. basic_auth becomes the Authorization header it stands for,
// added to *headers, its base64 text a secret too; digest_auth is
// returned, for the engine to answer the server's challenge with. A block
// sets at most one of them, and neither beside an Authorization header.
func (l *loader) decodeAuth(attrs hcl.Attributes, headers *[]Header, what string) (*Credentials, hcl.Diagnostics) {
	basic, digest := attrs["basic_auth"], attrs["digest_auth"]
	if basic == nil && digest == nil {
		return nil, nil
	}
	if basic != nil && digest != nil {
		return nil, hcl.Diagnostics{attrError(digest, "Invalid digest_auth", fmt.Sprintf("%s sets both basic_auth and digest_auth: keep the one the server asks for.", what))}
	}
	attr := basic
	if attr == nil {
		attr = digest
	}
	for _, h := range *headers {
		if strings.EqualFold(h.Name, "Authorization") {
			return nil, hcl.Diagnostics{attrError(attr, "Invalid "+attr.Name, fmt.Sprintf("%s also sets an Authorization header: keep one of the two.", what))}
		}
	}
	c, diags := l.decodeCredentials(attr, what)
	if c == nil || digest != nil {
		return c, diags
	}
	token := base64.StdEncoding.EncodeToString([]byte(c.Username + ":" + c.Password))
	l.secrets.addText(token)
	*headers = append(*headers, Header{Name: "Authorization", Value: LiteralTemplate("Basic " + token)})
	return nil, diags
}
