// polars (nodejs-polars) reads the IPC stream as it is: npm i nodejs-polars
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
