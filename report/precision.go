package report

// Precision says how exact a report's latency figures are, so nobody reads
// the seven digits of a JSON quantile as seven significant ones.
type Precision struct {
	// QuantileRelativeError bounds |reported − exact| / exact for p50, p90,
	// p95, p99 and p99.9: the HDR histogram keeps two significant digits.
	// The quantile is the nearest-rank one (the ceil(q·n)-th smallest).
	QuantileRelativeError float64 `json:"quantile_relative_error"`
	// Exact lists the statistics computed without rounding.
	Exact []string `json:"exact"`
	// SeriesRelativeError bounds the per-second p50 and p99 of the time
	// series, kept in a compact histogram of 1/128 resolution.
	SeriesRelativeError float64 `json:"series_relative_error"`
}

// reportPrecision is the precision of every report this package builds.
var reportPrecision = Precision{
	QuantileRelativeError: 0.01,
	Exact:                 []string{"count", "min", "mean", "max"},
	SeriesRelativeError:   1.0 / 128,
}

// precisionNote is the line the latency tables carry.
const precisionNote = "p50 to p99.9 are within 1% of the exact nearest-rank value (HDR histogram, 2 significant digits); min, mean and max are exact"
