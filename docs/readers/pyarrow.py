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
print(json.dumps({
    "rows": table.num_rows,
    "latency_sum_ns": str(pc.sum(answered).as_py() or 0),
    "endpoints": {c["values"].as_py(): c["counts"].as_py() for c in counts},
    "plan": table.schema.metadata[b"tressi.plan_name"].decode(),
}))
