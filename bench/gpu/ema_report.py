#!/usr/bin/env python3
"""The G_ema comparison of a GPU lease (bench/gpu/lease.sh, issue 43 item 5) as a table.

    bench/gpu/ema_report.py EMA_DIR OUT.md

EMA_DIR is the lease's ema folder (ema.tar.gz unpacked): one run directory per setting and
ema-eval.jsonl, the SWD of G (--generator raw) and of G_ema at each checkpoint, evaluated alike
(same seed and sample count). Prints and writes the table: per setting and step, G's and G_ema's
SWD and their difference; then per setting the final figures and the mean over the last half of
the checkpoints (one checkpoint's SWD moves by a few points from one to the next).
"""
import json
import os
import re
import sys


def step_of(name, run_dir):
    m = re.search(r"_step(\d+)\.pt$", name)
    if m:
        return int(m.group(1))
    # An epoch-end or final checkpoint: its step from the run's checkpoint events.
    try:
        for line in open(os.path.join(run_dir, "events.jsonl")):
            e = json.loads(line)
            if e.get("kind") == "checkpoint" and os.path.basename(e.get("path", "")) == name:
                return int(e["step"])
    except (OSError, ValueError, KeyError):
        pass
    return None


def main(ema_dir, out_md):
    rows = [json.loads(l) for l in open(os.path.join(ema_dir, "ema-eval.jsonl")) if l.strip()]
    table = {}
    for r in rows:
        step = step_of(r["checkpoint"], os.path.join(ema_dir, r["run"]))
        table.setdefault(r["run"], {}).setdefault(step, {})[r["generator"]] = r.get("swd")
    settings = {}
    for run in table:
        try:
            cfg = json.load(open(os.path.join(ema_dir, run, "run.json")))
            settings[run] = {k: cfg.get("config", cfg).get(k) for k in ("ema", "ema_kimg", "batch", "steps", "amp", "preset")}
        except (OSError, ValueError):
            settings[run] = {}
    out = ["# G against G_ema on the same GPU runs (SWD x 1e3, lower is better)", ""]
    for run, s in settings.items():
        out.append("- %s: %s" % (run, ", ".join("%s %s" % kv for kv in s.items() if kv[1] is not None)))
    out += ["", "| setting | step | G | G_ema | G_ema - G |", "|---|---|---|---|---|"]
    summary = {}
    for run in sorted(table):
        steps = sorted(s for s in table[run] if s is not None)
        for st in steps:
            g, e = table[run][st].get("raw"), table[run][st].get("ema")
            out.append("| %s | %d | %s | %s | %s |" % (run, st, "-" if g is None else "%.1f" % g, "-" if e is None else "%.1f" % e,
                                                    "-" if g is None or e is None else "%+.1f" % (e - g)))
        half = steps[len(steps) // 2:]
        mean = lambda key: sum(table[run][s][key] for s in half if table[run][s].get(key) is not None) / max(1, sum(1 for s in half if table[run][s].get(key) is not None))
        summary[run] = {"final_step": steps[-1] if steps else None, "final_g": table[run][steps[-1]].get("raw") if steps else None,
                        "final_ema": table[run][steps[-1]].get("ema") if steps else None, "mean_last_half_g": mean("raw"),
                        "mean_last_half_ema": mean("ema"), "checkpoints_in_mean": len(half)}
    out += ["", "| setting | final step | final G | final G_ema | mean of last half: G | G_ema | checkpoints |", "|---|---|---|---|---|---|---|"]
    for run, s in summary.items():
        out.append("| %s | %s | %.1f | %.1f | %.1f | %.1f | %d |" % (run, s["final_step"], s["final_g"] or 0, s["final_ema"] or 0,
                                                                s["mean_last_half_g"], s["mean_last_half_ema"], s["checkpoints_in_mean"]))
    text = "\n".join(out) + "\n"
    open(out_md, "w").write(text)
    json.dump({"settings": settings, "table": {r: {str(k): v for k, v in t.items()} for r, t in table.items()}, "summary": summary},
              open(os.path.splitext(out_md)[0] + ".json", "w"), indent=1)
    print(text)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: bench/gpu/ema_report.py EMA_DIR OUT.md")
    main(sys.argv[1], sys.argv[2])
