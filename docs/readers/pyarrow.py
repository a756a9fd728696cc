# pyarrow reads the IPC stream as it is, zstd included: pip install pyarrow
import json
import sys

import pyarrow as pa
import pyarrow.compute as pc

path = sys.argv[1] if len(sys.argv) > 1 else "results.arrow"
with pa.OSFile(path) as f:
    table = pa.ipc.open_stream(f).read_all()
latency = table["latency_ns"]
answered = pc.filter(latency, pc.greater_equal(latency, 0))
counts = pc.value_counts(table["endpoint"].combine_chunks().dictionary_decode())
# slot and scheduled_ns are stored as each row's difference from the row
# before (slot_delta, scheduled_delta_ns): running sums give them back.
slot = pc.cumulative_sum(table["slot_delta"].combine_chunks())
scheduled = pc.cumulative_sum(table["scheduled_delta_ns"].combine_chunks())
print(json.dumps({
    "rows": table.num_rows,
    "latency_sum_ns": str(pc.sum(answered).as_py() or 0),
    "slot_sum": str(pc.sum(slot).as_py() or 0),
    "scheduled_sum_ns": str(pc.sum(scheduled).as_py() or 0),
    "endpoints": {c["values"].as_py(): c["counts"].as_py() for c in counts},
    "plan": table.schema.metadata[b"tressi.plan_name"].decode(),
}))
