// DuckDB without any extension: export the rows as CSV first
//   tressi report RUN_DIR --format csv -o rows.csv
// then query them: npm i -E @duckdb/node-api@1.5.6-r.1
import { DuckDBInstance } from "@duckdb/node-api";

const file = process.argv[2] ?? "rows.csv";
const con = await (await DuckDBInstance.create(":memory:")).connect();
const rows = (await con.runAndReadAll(`
  SELECT endpoint, count(*) AS n,
         sum(latency_ns) FILTER (WHERE latency_ns >= 0) AS latency_sum_ns,
         sum(slot) AS slot_sum, sum(scheduled_ns) AS scheduled_sum_ns
  FROM read_csv('${file}') GROUP BY ALL ORDER BY endpoint`)).getRowObjectsJson();
const total = (key) => rows.reduce((a, r) => a + BigInt(r[key] ?? 0), 0n).toString();
console.log(JSON.stringify({
  rows: rows.reduce((a, r) => a + Number(r.n), 0),
  latency_sum_ns: total("latency_sum_ns"),
  slot_sum: total("slot_sum"),
  scheduled_sum_ns: total("scheduled_sum_ns"),
  endpoints: Object.fromEntries(rows.map((r) => [r.endpoint, Number(r.n)])),
}));
