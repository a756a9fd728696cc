package report

import (
	"fmt"
	"strings"
)

// maxListed is how many items (or ranges) a warning names before it
// summarises the rest: a warning is read by a person, and 19,999 shard names
// on one line is not read at all.
const maxListed = 8

// summariseList joins items with ", ", naming at most maxListed of them and
// counting the rest.
func summariseList(items []string) string {
	if len(items) <= maxListed {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:maxListed], ", "), len(items)-maxListed)
}

// shardRanges names shard indices (ascending) of a run of n shards as
// ranges: 1/4, 3/4 or 1/20000–19999/20000, summarised past maxListed ranges.
func shardRanges(indices []int, n int) string {
	var ranges []string
	for i := 0; i < len(indices); {
		j := i
		for j+1 < len(indices) && indices[j+1] == indices[j]+1 {
			j++
		}
		if i == j {
			ranges = append(ranges, fmt.Sprintf("%d/%d", indices[i], n))
		} else {
			ranges = append(ranges, fmt.Sprintf("%d/%d–%d/%d", indices[i], n, indices[j], n))
		}
		i = j + 1
	}
	return summariseList(ranges)
}
