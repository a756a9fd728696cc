package record

import (
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
)

// RedactSamples cuts the plan's sensitive texts out of sampled responses
// and their error details before they are written: a server that echoes a header or a body sends
// the secret back, and samples.arrow and every report would keep it.
func RedactSamples(samples []results.Sample, secrets plan.Secrets) {
	if len(secrets) == 0 {
		return
	}
	for i := range samples {
		s := &samples[i]
		s.Headers = secrets.String(s.Headers)
		s.Body = secrets.Bytes(s.Body)
		s.Detail = secrets.String(s.Detail) // an error may quote what was sent
	}
}
