// Reads a .tplan with a second Arrow implementation (polars, Rust arrow
// underneath) and prints what it saw as JSON for the Go test.
const pl = require("nodejs-polars");
const df = pl.readIPCStream(require("fs").readFileSync(process.argv[2]));
console.log(JSON.stringify({
  rows: df.height,
  columns: df.columns,
  dtypes: df.dtypes.map(String),
  due_sum: Number(df.getColumn("due_ns").sum()),
  entry_sum: Number(df.getColumn("entry").sum()),
}));
