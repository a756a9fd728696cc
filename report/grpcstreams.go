package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// addGRPCStreams adds meta.json's grpc_streams object, by the step that
// opens them the streams' calls, messages sent, replies received and
// replies unmatched, to into, summed over shards.
func addGRPCStreams(into map[string]map[string]int64, env map[string]any) map[string]map[string]int64 {
	byStep, ok := env["grpc_streams"].(map[string]any)
	if !ok {
		return into
	}
	for step, v := range byStep {
		counts, ok := v.(map[string]any)
		if !ok {
			continue
		}
		for name, n := range counts {
			f, ok := n.(float64)
			if !ok || f < 0 {
				continue
			}
			if into == nil {
				into = map[string]map[string]int64{}
			}
			if into[step] == nil {
				into[step] = map[string]int64{}
			}
			into[step][name] += int64(f)
		}
	}
	return into
}

// grpcStreamsLine says, stream by stream, what its calls sent and
// received: "chat.chat: 500 calls, 5,000 sent, 5,000 received, 0 unmatched".
func grpcStreamsLine(s map[string]map[string]int64) string {
	var out []string
	for _, step := range slices.Sorted(maps.Keys(s)) {
		c := s[step]
		out = append(out, fmt.Sprintf("%s: %s calls, %s sent, %s received, %s unmatched", step,
			count(c["calls"]), count(c["sent"]), count(c["received"]), count(c["unmatched"])))
	}
	return strings.Join(out, "; ")
}
