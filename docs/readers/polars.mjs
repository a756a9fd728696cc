// polars (nodejs-polars) reads the IPC stream as it is. Pinned: later releases'
// native part needs Node >= 22, and 0.25.2 runs on Debian's Node 20. The
// native package is named for the platform (here Linux x86-64, glibc):
// npm i -E nodejs-polars@0.25.2 nodejs-polars-linux-x64-gnu@0.25.2
import { readFileSync } from "node:fs";
import pl from "nodejs-polars";

// slot and scheduled_ns are stored as each row's difference from the row
// before (slot_delta, scheduled_delta_ns): running sums give them back.
const df = pl.readIPCStream(readFileSync(process.argv[2] ?? "results.arrow")).withColumns(
  pl.col("slot_delta").cumSum().alias("slot"),
  pl.col("scheduled_delta_ns").cumSum().alias("scheduled_ns"),
);
const answered = df.filter(pl.col("latency_ns").gtEq(0));
const perEndpoint = df.groupBy("endpoint").len().sort("endpoint");
console.log(JSON.stringify({
  rows: df.height,
  latency_sum_ns: answered.getColumn("latency_ns").sum().toString(),
  slot_sum: df.getColumn("slot").sum().toString(),
  scheduled_sum_ns: df.getColumn("scheduled_ns").sum().toString(),
  endpoints: Object.fromEntries(perEndpoint.rows().map(([name, n]) => [String(name), Number(n)])),
}));
