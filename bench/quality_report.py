#!/usr/bin/python3
"""The report step of bench/quality_compare.sh: reads the runs' events.jsonl files and writes the
SWD curves as JSON, a markdown table and a PNG plot.

Input: --index FILE, the JSON list quality_compare.sh writes, one object per run:
  {"dataset": "synthetic"|"photo", "setting": "reference"|"ema"|"ema+diffaugment",
   "label": "...", "run_dir": "...", "wall_s": .., "cpu_s": .., "others_cpu_share": ..,
   "flags": [...]}
An entry may also name "evals": a JSON-lines file of {"step": S, "eval": <`streetgan-trainer eval
--json` of the checkpoint of step S>} whose SWD figures replace the run's metric lines
(bench_ema.sh --branch-at evaluates checkpoints after training).
Each run_dir holds run.json and events.jsonl as `streetgan-trainer train` writes them: "metric"
lines (step, swd, swd_levels, seconds: SWD x 1e3 of the checkpoint at that step, lower is better;
the evaluation runs in the background and its line is written when it ends), "checkpoint" lines
(step, t) and "metrics" lines (step, t, img_per_s).

Output, for --out PREFIX (e.g. bench/results/quality-20261128-140000):
  PREFIX.json  every curve: per checkpoint step, wall seconds since the run started (when the
               checkpoint was written), the SWD and its levels, the evaluation's own seconds;
               per run img/s, wall/CPU seconds and the other processes' CPU share
  PREFIX.md    the table: per data set and setting, SWD at each checkpoint, final and best SWD,
               training img/s
  PREFIX.png   SWD against step, one panel per data set, one line per setting
--docs PATH also copies the PNG there (quality_compare.sh --docs: docs/images/quality-compare.png).

matplotlib: Debian's python3-matplotlib (apt-get install -y --no-install-recommends when missing
and root). Fails only when a run has no SWD measurement (a run that failed), never on a value.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys


def die(msg):
    sys.exit("quality_report.py: " + msg)


def ensure_matplotlib():
    import importlib
    try:
        importlib.import_module("matplotlib")
        return
    except ImportError:
        pass
    if os.geteuid() != 0:
        die("needs matplotlib: apt-get install python3-matplotlib (as root), then run this with /usr/bin/python3")
    subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends", "python3-matplotlib"],
                   check=True, stdout=subprocess.DEVNULL)
    importlib.invalidate_caches()
    try:
        importlib.import_module("matplotlib")
    except ImportError:
        die("python3-matplotlib installed but not importable: run this with /usr/bin/python3")


def read_run(entry):
    d = entry["run_dir"]
    try:
        with open(os.path.join(d, "run.json")) as f:
            run = json.load(f)
        events = [json.loads(line) for line in open(os.path.join(d, "events.jsonl")) if line.strip()]
    except (OSError, ValueError) as e:
        die("cannot read run %s: %s" % (d, e))
    cfg = run.get("config", {})
    start = run.get("start_time")
    if start is None:
        start = min(e["t"] for e in events if "t" in e)
    ckpt_t = {}
    for e in events:
        if e.get("kind") == "checkpoint":
            ckpt_t[e["step"]] = e["t"]
    points, skipped = [], []
    if entry.get("evals"):
        # bench_ema.sh --branch-at: the figures come from `eval` of each checkpoint, one JSON line per
        # checkpoint {"step": S, "eval": <eval --json>}, in place of the training-time metric lines.
        try:
            evals = [json.loads(line) for line in open(entry["evals"]) if line.strip()]
        except (OSError, ValueError) as e:
            die("cannot read the evaluations %s: %s" % (entry["evals"], e))
        events = [e for e in events if e.get("kind") != "metric"] + [
            {"kind": "metric", "step": v["step"], "t": ckpt_t.get(v["step"], start), **v["eval"]} for v in evals]
    for e in events:
        if e.get("kind") != "metric" or "swd" not in e and "swd_unavailable" not in e:
            continue
        step = e["step"]
        if e.get("swd") is None:  # e.g. skipped: the previous evaluation was still running
            skipped.append({"step": step, "reason": e.get("swd_unavailable", "no value")})
            continue
        points.append({
            "step": step,
            "wall_s": round(ckpt_t.get(step, e["t"]) - start, 3),
            "metric_logged_s": round(e["t"] - start, 3),
            "swd": e["swd"],
            "swd_levels": e.get("swd_levels", {}),
            "eval_s": e.get("seconds"),
            "swd_samples": e.get("swd_samples"),
        })
    points.sort(key=lambda p: p["step"])
    if not points:
        die("run %s (%s, %s) has no SWD measurement in events.jsonl" % (d, entry["dataset"], entry["setting"]))
    batch = cfg.get("batch") or 0
    # Per trainer process (a "running" status starts one: a resumed run has several, with the time
    # between them, other runs' in bench_ema.sh --branch-at, left out): images over seconds between
    # its first and last loss log.
    segments, m = [[]], []
    for e in events:
        if e.get("kind") == "status" and e.get("state") == "running" and segments[-1]:
            segments.append([])
        if e.get("kind") == "metrics":
            segments[-1].append(e)
            m.append(e)
    images = sum((g[-1]["step"] - g[0]["step"]) * batch for g in segments if len(g) >= 2)
    seconds = sum(g[-1]["t"] - g[0]["t"] for g in segments if len(g) >= 2)
    if seconds > 0:
        img_s = images / seconds
    elif m:
        img_s = m[-1].get("img_per_s")
    else:
        img_s = None
    best = min(points, key=lambda p: p["swd"])
    # One checkpoint's SWD is noisy (512 samples, and a GAN's quality moves from step to step): the
    # mean over the last third of the steps is the steadier figure to rank settings by.
    steps = cfg.get("steps") or points[-1]["step"]
    tail = [p["swd"] for p in points if 3 * p["step"] >= 2 * steps]
    out = dict(entry)
    out.update({
        "preset": cfg.get("preset"), "steps": cfg.get("steps"), "batch": batch, "seed": cfg.get("seed"),
        "ema": cfg.get("ema"), "diffaugment": cfg.get("diffaugment"),
        "swd_samples": points[-1].get("swd_samples") or cfg.get("metric_swd_samples"),
        "data_source": run.get("data_source"), "version": run.get("version"),
        "img_per_s": round(img_s, 2) if img_s else None,
        "final_swd": points[-1]["swd"], "final_step": points[-1]["step"],
        "best_swd": best["swd"], "best_step": best["step"],
        "tail_mean_swd": sum(tail) / len(tail) if tail else None, "tail_points": len(tail),
        "checkpoint_every": cfg.get("checkpoint_every"),
        "eval_s_mean": round(sum(p["eval_s"] or 0 for p in points) / len(points), 2),
        "curve": points,
        "skipped": skipped,
    })
    return out


def fmt(x, nd=1):
    return "-" if x is None else ("%.*f" % (nd, x))


def markdown(runs, title):
    lines = ["# " + title, ""]
    datasets = []
    for r in runs:
        if r["dataset"] not in datasets:
            datasets.append(r["dataset"])
    for ds in datasets:
        rs = [r for r in runs if r["dataset"] == ds]
        # Columns: the --checkpoint-every checkpoints. The trainer also writes one at each epoch's end
        # (every 31 steps on a 2,000-image set at batch 64): those are in the JSON and the plot.
        every = rs[0].get("checkpoint_every") or 0
        steps = sorted({p["step"] for r in rs for p in r["curve"] + r["skipped"] if every <= 0 or p["step"] % every == 0})
        lines += ["## %s (%s)" % (ds, rs[0].get("data_source") or ""), ""]
        head = ["setting"] + ["step %d" % s for s in steps] + ["final", "mean, last third (n)", "best (step)", "img/s", "wall s", "others' CPU"]
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * len(head))
        for r in rs:
            by = {p["step"]: fmt(p["swd"]) for p in r["curve"]}
            by.update({k["step"]: "skipped" for k in r["skipped"]})
            row = [r["label"]] + [by.get(s, "-") for s in steps] + [
                fmt(r["final_swd"]), "**%s** (%d)" % (fmt(r["tail_mean_swd"]), r["tail_points"]), "%s (%d)" % (fmt(r["best_swd"]), r["best_step"]),
                fmt(r["img_per_s"]), fmt(r.get("wall_s"), 0),
                "%d%%" % round(100 * r["others_cpu_share"]) if r.get("others_cpu_share") is not None else "-"]
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    lines += ["Settings (the same preset, data, seed, batch and steps otherwise):", ""]
    seen = set()
    for r in runs:
        if r["setting"] not in seen:
            seen.add(r["setting"])
            fl = r.get("flags", [])
            pairs = [(fl[i], fl[i + 1]) for i in range(len(fl) - 1) if fl[i] in ("--ema", "--ema-kimg", "--diffaugment")]
            lines.append("- %s: `%s`" % (r["label"], " ".join("%s %s" % (k, v or '""') for k, v in pairs)))
    lines.append("")
    if any(r["skipped"] for r in runs):
        lines += ["skipped: the trainer logged no SWD for that checkpoint because the previous checkpoint's "
                  "evaluation (in the background) was still running when a newer one came due; "
                  "checkpoints further apart avoid it.", ""]
    lines += [
        "SWD: multi-scale sliced Wasserstein distance x 1e3 between generated and real images (lower is "
        "better), of G_ema where the run has one, else of G; %s samples per evaluation. mean, last third: the mean "
        "SWD of the checkpoints in the last third of the steps (n of them, epoch ends included), the figure to "
        "rank settings by: one checkpoint's SWD moves by several points from one checkpoint to the next. img/s: training "
        "images per second between the first and last loss log (background SWD evaluations share the CPU). "
        "others' CPU: share of the machine's CPU that other processes used during the run; compare wall "
        "times only between runs where it is low." % runs[0].get("swd_samples"), ""]
    return "\n".join(lines)


def plot(runs, title, path):
    """Top row: SWD against step, one panel per data set, one line per setting. Bottom row: the same
    against wall-clock seconds since the run started (when each checkpoint was written)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    datasets = []
    for r in runs:
        if r["dataset"] not in datasets:
            datasets.append(r["dataset"])
    styles = {"reference": ("tab:gray", "o", "--"), "ema": ("tab:blue", "s", "-"),
              "ema+diffaugment": ("tab:red", "^", "-")}
    names = {"synthetic": "synthetic streets", "photo": "real-photo fixture"}
    fig, axes = plt.subplots(2, len(datasets), figsize=(6.4 * len(datasets), 8.4), squeeze=False)
    for col, ds in enumerate(datasets):
        for row, (key, xlabel) in enumerate((("step", "training step"),
                                             ("wall_s", "wall-clock seconds since the run started"))):
            ax = axes[row][col]
            for r in (r for r in runs if r["dataset"] == ds):
                color, marker, ls = styles.get(r["setting"], (None, "o", "-"))
                ax.plot([p[key] for p in r["curve"]], [p["swd"] for p in r["curve"]], color=color,
                        marker=marker, linestyle=ls, linewidth=1.8, markersize=5,
                        label="%s (last third %.1f, final %.1f)" % (r["label"], r["tail_mean_swd"], r["final_swd"]))
            ax.set_title("%s: SWD against %s" % (names.get(ds, ds), "step" if row == 0 else "time"))
            ax.set_xlabel(xlabel)
            ax.set_ylabel("SWD x 1e3 (lower is better)")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8.5)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", required=True, help="runs index JSON written by quality_compare.sh")
    ap.add_argument("--out", required=True, help="output prefix: PREFIX.json, PREFIX.md, PREFIX.png")
    ap.add_argument("--docs", help="also copy the PNG to this path")
    ap.add_argument("--meta", help="JSON object of run-wide facts (host, load, trainer) to keep in PREFIX.json")
    a = ap.parse_args()
    with open(a.index) as f:
        index = json.load(f)
    if not index:
        die("empty index " + a.index)
    runs = [read_run(e) for e in index]
    ensure_matplotlib()
    r0 = runs[0]
    title = "SWD over training at equal steps: %s, %s steps, batch %s, seed %s, %s SWD samples, %s thread(s)" % (
        r0["preset"], r0["steps"], r0["batch"], r0["seed"], r0["swd_samples"], r0.get("threads", "?"))
    meta = json.loads(a.meta) if a.meta else {}
    doc = {"title": title, **meta, "runs": runs}
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    with open(a.out + ".md", "w") as f:
        f.write(markdown(runs, title))
    plot(runs, title, a.out + ".png")
    if a.docs:
        os.makedirs(os.path.dirname(os.path.abspath(a.docs)), exist_ok=True)
        shutil.copyfile(a.out + ".png", a.docs)
    print(markdown(runs, title))
    print("wrote %s.json, %s.md, %s.png%s" % (a.out, a.out, a.out, (" and " + a.docs) if a.docs else ""))


if __name__ == "__main__":
    main()
