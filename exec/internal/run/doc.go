// Package run is what both engines share of one run: the Executor (the
// schedule, the clock, the stop and its grace, the schedule-end watch), the
// row sinks that hand rows to the recorder, thresholds and live gauges,
// prepared requests and the wire writer, the fasthttp clients and TLS
// configurations, error classes, the session programs (one form for every
// kind of scenario, program.go) and captured values, the
// closed model's entry pick, and the transport seam.
package run
