// DuckDB reads Arrow IPC files with its nanoarrow community extension
// (downloaded once by INSTALL): npm i -E @duckdb/node-api@1.5.6-r.1
import { DuckDBInstance } from "@duckdb/node-api";

const file = process.argv[2] ?? "results.arrow";
const con = await (await DuckDBInstance.create(":memory:")).connect();
await con.run("INSTALL nanoarrow FROM community");
await con.run("LOAD nanoarrow");
const sql = (from) => `
  SELECT endpoint::VARCHAR AS endpoint, count(*) AS n,
         sum(latency_ns) FILTER (WHERE latency_ns >= 0) AS latency_sum_ns
  FROM ${from} GROUP BY ALL ORDER BY endpoint`;
const rows = (await con.runAndReadAll(sql(`read_arrow('${file}')`))).getRowObjectsJson();
console.log(JSON.stringify({
  rows: rows.reduce((a, r) => a + Number(r.n), 0),
  latency_sum_ns: rows.reduce((a, r) => a + BigInt(r.latency_sum_ns ?? 0), 0n).toString(),
  endpoints: Object.fromEntries(rows.map((r) => [r.endpoint, Number(r.n)])),
}));
