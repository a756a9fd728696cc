// apache-arrow JS reads tressi's zstd-compressed files once a zstd codec is
// registered (it ships none): npm i -E apache-arrow@21.2.0 fzstd@0.1.1
import { readFileSync } from "node:fs";
import { tableFromIPC, compressionRegistry, CompressionType } from "apache-arrow";
import { decompress } from "fzstd";

compressionRegistry.set(CompressionType.ZSTD, { decode: (data) => decompress(data).slice() });

const table = tableFromIPC(readFileSync(process.argv[2] ?? "results.arrow"));
const latency = table.getChild("latency_ns"); // int64: BigInt values, -1 when no response
let sum = 0n;
for (const v of latency) if (v >= 0n) sum += v;
const perEndpoint = {};
for (const name of table.getChild("endpoint")) perEndpoint[name] = (perEndpoint[name] ?? 0) + 1;
// slot and scheduled_ns are stored as each row's difference from the row
// before (slot_delta, scheduled_delta_ns): running sums give them back.
const slotDelta = table.getChild("slot_delta").toArray();
const scheduledDelta = table.getChild("scheduled_delta_ns").toArray();
let slot = 0n, scheduled = 0n, slotSum = 0n, scheduledSum = 0n;
for (let i = 0; i < table.numRows; i++) {
  slot += slotDelta[i];
  scheduled += scheduledDelta[i];
  slotSum += slot;
  scheduledSum += scheduled;
}
console.log(JSON.stringify({
  rows: table.numRows,
  latency_sum_ns: sum.toString(),
  slot_sum: slotSum.toString(),
  scheduled_sum_ns: scheduledSum.toString(),
  endpoints: perEndpoint,
  plan: table.schema.metadata.get("tressi.plan_name"),
}));
