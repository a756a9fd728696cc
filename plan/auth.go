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

// decodeBasicAuth reads basic_auth on a target, an endpoint or a step and
// adds the Authorization header it stands for to *headers. The password
// and the header's base64 text are secrets whatever their origin: they are
// cut out of every sample, detail and message, as a sensitive variable's
// text is.
func (l *loader) decodeBasicAuth(attrs hcl.Attributes, headers *[]Header, what string) hcl.Diagnostics {
	attr := attrs["basic_auth"]
	if attr == nil {
		return nil
	}
	v, diags := l.eval(attr.Expr, scope{what: what + " basic_auth"})
	if diags.HasErrors() || v.IsNull() || !v.IsWhollyKnown() {
		return diags
	}
	v, _ = v.UnmarkDeep()
	cv, err := convert.Convert(v, credentialsType)
	if err != nil || cv.GetAttr("username").IsNull() || cv.GetAttr("password").IsNull() {
		return append(diags, attrError(attr, "Invalid basic_auth", "basic_auth must be an object with a username and a password, such as { username = \"alice\", password = var.password }."))
	}
	user, pass := cv.GetAttr("username").AsString(), cv.GetAttr("password").AsString()
	if strings.Contains(user, ":") {
		return append(diags, attrError(attr, "Invalid basic_auth", "basic_auth's username cannot hold a ':' (RFC 7617: the first ':' ends the user id)."))
	}
	if strings.ContainsAny(user+pass, "\r\n") {
		return append(diags, attrError(attr, "Invalid basic_auth", "basic_auth's username and password cannot hold a line break."))
	}
	for _, h := range *headers {
		if strings.EqualFold(h.Name, "Authorization") {
			return append(diags, attrError(attr, "Invalid basic_auth", fmt.Sprintf("%s also sets an Authorization header: keep one of the two.", what)))
		}
	}
	token := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
	l.secrets.addText(pass)
	l.secrets.addText(token)
	*headers = append(*headers, Header{Name: "Authorization", Value: LiteralTemplate("Basic " + token)})
	return diags
}
