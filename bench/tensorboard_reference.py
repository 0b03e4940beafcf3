"""TensorBoard's own reader on a run folder, for bench/bench_tensorboard.sh: loads every scalar
with EventAccumulator (size_guidance 0: keep all, as our dashboard does) and prints one JSON line:
records, load seconds, peak RSS MB of this process. Usage: tensorboard_reference.py DIR"""
import json
import resource
import sys
import time

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator, SCALARS

t0 = time.perf_counter()
acc = EventAccumulator(sys.argv[1], size_guidance={SCALARS: 0})
acc.Reload()
records = sum(len(acc.Scalars(tag)) for tag in acc.Tags()[SCALARS])
seconds = time.perf_counter() - t0
print(json.dumps({"reader": "EventAccumulator", "records": records, "load_s": round(seconds, 3),
                  "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)}))
