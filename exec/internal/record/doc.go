// Package record is the recording side of a run: the recorder that turns
// rows into Arrow batches and keeps the totals and live percentiles, the
// first-send check, meta.json, the run directory and the redaction of
// samples.
package record
