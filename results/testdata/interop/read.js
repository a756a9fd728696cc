// Reads a tressi results file with a second Arrow implementation (polars,
// Rust arrow underneath) and prints what it saw as JSON for the Go test.
const pl = require("nodejs-polars");
const df = pl.readIPCStream(require("fs").readFileSync(process.argv[2]));
const col = (n) => df.getColumn(n);
console.log(JSON.stringify({
  rows: df.height,
  columns: df.columns,
  dtypes: df.dtypes.map(String),
  slot_sum: Number(col("slot").sum()),
  latency_sum: Number(col("latency_ns").sum()),
  sums: Object.fromEntries(["scheduled_ns", "sent_ns", "service_ns", "status", "bytes_out", "bytes_in", "connect_ns"]
    .map((n) => [n, Number(col(n).cast(pl.Float64).sum())])),
  endpoints: col("endpoint").cast(pl.Utf8).toArray(),
  errors: col("error").cast(pl.Utf8).toArray(),
}));
