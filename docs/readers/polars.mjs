// polars (nodejs-polars) reads the IPC stream as it is. Pinned: later releases'
// native part needs Node >= 22, and 0.25.2 runs on Debian's Node 20. The
// native package is named for the platform (here Linux x86-64, glibc):
// npm i -E nodejs-polars@0.25.2 nodejs-polars-linux-x64-gnu@0.25.2
import { readFileSync } from "node:fs";
import pl from "nodejs-polars";

const df = pl.readIPCStream(readFileSync(process.argv[2] ?? "results.arrow"));
const answered = df.filter(pl.col("latency_ns").gtEq(0));
const perEndpoint = df.groupBy("endpoint").len().sort("endpoint");
console.log(JSON.stringify({
  rows: df.height,
  latency_sum_ns: answered.getColumn("latency_ns").sum().toString(),
  endpoints: Object.fromEntries(perEndpoint.rows().map(([name, n]) => [String(name), Number(n)])),
}));
