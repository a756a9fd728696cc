package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/tressi/tressi/results"
)

// csvHeader is the contract's column order.
var csvHeader = []string{
	results.ColSlot, results.ColEndpoint, results.ColScheduled, results.ColSent, results.ColLatency,
	results.ColService, results.ColStatus, results.ColError, results.ColBytesOut, results.ColBytesIn,
}

// WriteCSV streams every row of the inputs (shards one after another) as
// CSV with a header line, one batch in memory at a time. Endpoint names are
// quoted when they need it; numbers never do.
func (r *Report) WriteCSV(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	for i, name := range csvHeader {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString(name)
	}
	bw.WriteByte('\n')
	readers, err := openInputs(r.inputs)
	if err != nil {
		return err
	}
	defer func() {
		for _, rd := range readers {
			rd.Close()
		}
	}()
	var line []byte
	for i, rd := range readers {
		var endpoints, errs []string
		for {
			b, ok := rd.Next()
			if !ok {
				break
			}
			endpoints, errs = csvFields(endpoints, b.EndpointNames), csvFields(errs, b.ErrorNames)
			for j := 0; j < b.Len; j++ {
				if int(b.Endpoint[j]) >= len(endpoints) || int(b.Error[j]) >= len(errs) {
					return fmt.Errorf("%s: dictionary index out of range: the file is damaged", r.inputs[i].Results)
				}
				line = strconv.AppendUint(line[:0], b.Slot[j], 10)
				line = append(line, ',')
				line = append(line, endpoints[b.Endpoint[j]]...)
				for _, v := range [...]int64{b.Scheduled[j], b.Sent[j], b.Latency[j], b.Service[j]} {
					line = append(line, ',')
					line = strconv.AppendInt(line, v, 10)
				}
				line = append(line, ',')
				line = strconv.AppendUint(line, uint64(b.Status[j]), 10)
				line = append(line, ',')
				line = append(line, errs[b.Error[j]]...)
				line = append(line, ',')
				line = strconv.AppendUint(line, uint64(b.BytesOut[j]), 10)
				line = append(line, ',')
				line = strconv.AppendUint(line, uint64(b.BytesIn[j]), 10)
				line = append(line, '\n')
				if _, err := bw.Write(line); err != nil {
					return err
				}
			}
		}
		if err := rd.Err(); err != nil {
			return fmt.Errorf("%s: %w", r.inputs[i].Results, err)
		}
	}
	return bw.Flush()
}

func csvFields(dst, names []string) []string {
	dst = dst[:0]
	for _, n := range names {
		dst = append(dst, csvField(spreadsheetText(n)))
	}
	return dst
}

// csvField quotes s as RFC 4180 requires when it holds a comma, quote or
// line break.
func csvField(s string) string {
	needs := false
	for _, c := range s {
		if c == ',' || c == '"' || c == '\n' || c == '\r' {
			needs = true
			break
		}
	}
	if !needs && (len(s) == 0 || s[0] != ' ') {
		return s
	}
	q := []byte{'"'}
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			q = append(q, '"')
		}
		q = append(q, s[i])
	}
	return string(append(q, '"'))
}
