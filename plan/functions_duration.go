package plan

import (
	"time"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// secondsFunc is seconds("1m30s") = 90: a duration string, as every
// duration attribute takes it, in seconds, so a plan can spread a count
// over a duration variable (rate = var.sessions / seconds(var.ramp))
// whatever unit the user writes it in.
var secondsFunc = function.New(&function.Spec{
	Description: "The number of seconds in a duration string such as \"250ms\", \"20s\" or \"1m30s\".",
	Params:      []function.Parameter{{Name: "duration", Type: cty.String}},
	Type:        function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		d, err := time.ParseDuration(args[0].AsString())
		if err != nil {
			return cty.NilVal, function.NewArgErrorf(0, "want a duration such as \"250ms\", \"20s\" or \"1m30s\" (got %q)", args[0].AsString())
		}
		return cty.NumberFloatVal(d.Seconds()), nil
	},
})
