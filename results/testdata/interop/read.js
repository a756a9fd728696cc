// Reads a tressi results file with a second Arrow implementation (polars,
// Rust arrow underneath) and prints what it saw as JSON for the Go test.
const pl = require("nodejs-polars");
const stored = pl.readIPCStream(require("fs").readFileSync(process.argv[2]));
// slot and scheduled_ns are stored as each row's difference from the row
// before: their running sums give them back. service_ns is not stored: it
// is latency_ns − (sent_ns − scheduled_ns) where both are known
// (docs/contracts.md), -1 otherwise.
const df = stored.withColumns(
  pl.col("slot_delta").cumSum().alias("slot"),
  pl.col("scheduled_delta_ns").cumSum().alias("scheduled_ns"),
).withColumn(
  pl.when(pl.col("latency_ns").gtEq(0).and(pl.col("sent_ns").gtEq(0)))
    .then(pl.col("latency_ns").minus(pl.col("sent_ns").minus(pl.col("scheduled_ns"))))
    .otherwise(pl.lit(-1))
    .alias("service_ns"),
);
const col = (n) => df.getColumn(n);
console.log(JSON.stringify({
  rows: df.height,
  columns: stored.columns,
  dtypes: df.dtypes.map(String),
  slot_sum: Number(col("slot").sum()),
  latency_sum: Number(col("latency_ns").sum()),
  sums: Object.fromEntries(["scheduled_ns", "sent_ns", "service_ns", "status", "bytes_out", "bytes_in", "connect_ns"]
    .map((n) => [n, Number(col(n).cast(pl.Float64).sum())])),
  endpoints: col("endpoint").cast(pl.Utf8).toArray(),
  errors: col("error").cast(pl.Utf8).toArray(),
}));
