package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// addProtocols adds meta.json's protocols object, by target the
// connections that spoke each protocol ("http/1.1", "h2", "h2c"), to
// into, summed over shards; into is made when the first counts come.
func addProtocols(into map[string]map[string]int64, env map[string]any) map[string]map[string]int64 {
	byTarget, ok := env["protocols"].(map[string]any)
	if !ok {
		return into
	}
	for target, v := range byTarget {
		byProto, ok := v.(map[string]any)
		if !ok {
			continue
		}
		for proto, n := range byProto {
			f, ok := n.(float64)
			if !ok || f <= 0 {
				continue
			}
			if into == nil {
				into = map[string]map[string]int64{}
			}
			if into[target] == nil {
				into[target] = map[string]int64{}
			}
			into[target][proto] += int64(f)
		}
	}
	return into
}

// protocolLine says, target by target, how many connections spoke each
// protocol: "api: h2 10; web: http/1.1 4, h2 2".
func protocolLine(p map[string]map[string]int64) string {
	var targets []string
	for _, t := range slices.Sorted(maps.Keys(p)) {
		var protos []string
		for _, proto := range slices.Sorted(maps.Keys(p[t])) {
			protos = append(protos, fmt.Sprintf("%s %s", proto, count(p[t][proto])))
		}
		targets = append(targets, t+": "+strings.Join(protos, ", "))
	}
	return strings.Join(targets, "; ")
}
