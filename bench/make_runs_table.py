"""Makes N run folders for bench/bench_runs_table.sh from one real tiny run of ours (TEMPLATE: its
run.json and events.jsonl): each a copy with run.json's lr, seed and batch varied, and an
events.jsonl of a status line, METRICS (default 100) metrics lines made from the template's first
one (losses varied), a metric line every 10 of them, a best event and a finished status.
Usage: make_runs_table.py TEMPLATE N OUT [METRICS]
"""
import copy
import json
import os
import random
import sys


def main():
    template, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    lines = int(sys.argv[4]) if len(sys.argv) > 4 else 100
    run = json.load(open(os.path.join(template, "run.json")))
    events = [json.loads(l) for l in open(os.path.join(template, "events.jsonl")) if l.strip()]
    metrics = next(e for e in events if e.get("kind") == "metrics")
    rng = random.Random(43)
    for i in range(n):
        folder = os.path.join(out, "run-%05d" % i)
        os.makedirs(folder, exist_ok=True)
        r = copy.deepcopy(run)
        r["config"]["lr"] = [1e-4, 2e-4, 4e-4][i % 3]
        r["config"]["seed"] = i
        r["config"]["batch"] = [8, 16][i % 2]
        r["total_steps"] = lines * 10
        with open(os.path.join(folder, "run.json"), "w") as f:
            json.dump(r, f, indent=2)
        t = 1.7e9 + i
        out_lines = [{"kind": "status", "t": t, "state": "running", "step": 0, "total_steps": lines * 10}]
        for k in range(1, lines + 1):
            m = dict(metrics)
            m.update(step=k * 10, t=t + k, loss_d=rng.uniform(0.1, 1.5), loss_g=rng.uniform(0.5, 4.0), total_steps=lines * 10)
            out_lines.append(m)
            if k % 10 == 0:
                out_lines.append({"kind": "metric", "t": t + k + 0.5, "step": k * 10, "swd": rng.uniform(1, 20), "fid": None})
        out_lines.append({"kind": "best", "t": t + lines + 1, "step": lines * 5, "epoch": 0, "path": "checkpoints/best.pt",
                          "source": "checkpoints/checkpoint_0.pt", "metric": "swd", "value": 1.0})
        out_lines.append({"kind": "status", "t": t + lines + 2, "state": "finished", "step": lines * 10})
        with open(os.path.join(folder, "events.jsonl"), "w") as f:
            for e in out_lines:
                f.write(json.dumps(e, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
