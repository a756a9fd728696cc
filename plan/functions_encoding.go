package plan

import (
	"encoding/base64"
	"net/url"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// The encoding functions Terraform users expect but go-cty's stdlib lacks.

var base64EncodeFunc = function.New(&function.Spec{
	Description: "Encodes a string's UTF-8 bytes as standard base64.",
	Params:      []function.Parameter{{Name: "str", Type: cty.String}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return cty.StringVal(base64.StdEncoding.EncodeToString([]byte(args[0].AsString()))), nil
	},
})

var base64DecodeFunc = function.New(&function.Spec{
	Description: "Decodes standard base64 into a UTF-8 string.",
	Params:      []function.Parameter{{Name: "str", Type: cty.String}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		b, err := base64.StdEncoding.DecodeString(args[0].AsString())
		if err != nil {
			return cty.NilVal, function.NewArgErrorf(0, "not valid base64: %v", err)
		}
		if !utf8.Valid(b) {
			return cty.NilVal, function.NewArgErrorf(0, "the decoded bytes are not valid UTF-8 text")
		}
		return cty.StringVal(string(b)), nil
	},
})

var urlEncodeFunc = function.New(&function.Spec{
	Description: "Escapes a string for use in a URL query.",
	Params:      []function.Parameter{{Name: "str", Type: cty.String}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return cty.StringVal(url.QueryEscape(args[0].AsString())), nil
	},
})
