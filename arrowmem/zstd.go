package arrowmem

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// ZstdFrom is the size of a stream's buffers from which its writer
// compresses them. Below it the stream is small enough to store as it is:
// arrow-go's zstd encoder starts with 1.3 MB of match tables, and a first
// compression scatters its hashes over all of them, a page fault for
// every page, for a few KB saved (bench/README.md, session 14).
const ZstdFrom = 64 << 10

// Zstd returns the IPC writer option that compresses with zstd for a
// stream whose buffers hold size bytes, none below ZstdFrom. Readers take
// either: compression is per batch in the format.
func Zstd(size int) []ipc.Option {
	if size < ZstdFrom {
		return nil
	}
	return []ipc.Option{ipc.WithZstd()}
}

// RecordBytes is how many bytes rec's buffers hold, every column's.
func RecordBytes(rec arrow.RecordBatch) int {
	n := 0
	for _, col := range rec.Columns() {
		for _, buf := range col.Data().Buffers() {
			if buf != nil {
				n += buf.Len()
			}
		}
	}
	return n
}
