"""The app on a run for days, in minutes (issue 48 item 3): replays a training run's events into a
run folder that the desktop app follows, offscreen, and samples the app's and its children's RSS
and CPU as the events arrive.

The run folder is made from a seed run (a few real tiny-32 steps by streetgan-trainer): its run.json
and its first events, then metrics events, one per step, as a trainer logging every step writes
them, a sample grid every SAMPLE_EVERY steps and a checkpoint every CHECKPOINT_EVERY (hard links of
the seed run's files: a million steps take no disk), and a system event every 170 steps (2 s at
85 steps/s). The run looks alive to the app: this process holds trainer.lock (F_OFD_SETLK, as
RunLock does) and is the pid of the run's status event.

Phases, each sampled once a second (events written, RSS of the app and of each child, CPU):
  steady-before  RATE events/s for STEADY_S seconds, on a fresh app
  flood          as fast as the app is fed (batches of 2,000 lines, 20 ms apart) to EVENTS events
  catch-up       nothing written, until the app has read everything (it reads next to nothing for
                 3 s: /proc/PID/io's rchar; the seconds this takes are the lag)
  steady-after   RATE events/s for STEADY_S seconds again
  tail           nothing written, until the app has read everything again: 3 s when it kept up
BENCH_XVFB=1 runs the app on a virtual X server (xvfb-run) instead of Qt's offscreen platform, so
that its window is mapped and painted as on a desktop. The step the app shows is not observable
from outside the app; the catch-up time stands for it.

Usage: soak_replay.py APP SEED_RUN WORK OUT_PREFIX   (environment: see bench_soak.sh)
       soak_replay.py --report OUT_PREFIX.json      (the figures and plot of an earlier run again)
"""
import errno
import fcntl
import json
import os
import random
import shutil
import struct
import signal
import subprocess
import sys
import threading
import time

EVENTS = int(os.environ.get("BENCH_EVENTS", "1000000"))
RATE = float(os.environ.get("BENCH_RATE", "100"))
STEADY_S = float(os.environ.get("BENCH_STEADY_S", "60"))
SAMPLE_EVERY = int(os.environ.get("BENCH_SAMPLE_EVERY", "50"))
CHECKPOINT_EVERY = int(os.environ.get("BENCH_CHECKPOINT_EVERY", "2000"))
APP_SHARE = float(os.environ.get("BENCH_APP_SHARE", "1"))
# The app has caught up when it reads less than this in a second with nothing new written (it reads
# events.jsonl with three readers: the follower, the checkpoint catalog, the runs list's status).
CALM_READ_BYTES = 256 << 10
TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def proc_stat(pid):
    """(cpu seconds, rss MB, ppid) of a live process, or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            rest = f.read().rsplit(")", 1)[1].split()
        with open("/proc/%d/statm" % pid) as f:
            rss_pages = int(f.read().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return (int(rest[11]) + int(rest[12])) / TICK, rss_pages * PAGE / 2**20, int(rest[1])


def read_bytes(pid):
    """Bytes the process read so far (/proc/PID/io rchar: every read and pread, all its threads)."""
    try:
        with open("/proc/%d/io" % pid) as f:
            for line in f:
                if line.startswith("rchar:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


class Throttle(threading.Thread):
    """Lets the app run only `share` of each 100 ms (SIGSTOP, then SIGCONT): a machine so busy with
    other work that the app gets that share of a core, reproduced without burning the CPU."""

    def __init__(self, pid, share):
        super().__init__(daemon=True)
        self.pid, self.share, self.stopping = pid, share, threading.Event()

    def run(self):
        try:
            while not self.stopping.is_set():
                time.sleep(0.1 * self.share)
                os.kill(self.pid, signal.SIGSTOP)
                time.sleep(0.1 * (1 - self.share))
                os.kill(self.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass

    def stop(self):
        self.stopping.set()
        self.join()
        try:
            os.kill(self.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass


def machine_ticks():
    """(busy, total) jiffies of the whole machine (/proc/stat's cpu line): how busy the other work
    sharing the machine kept it."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    idle = v[3] + v[4]
    return sum(v) - idle, sum(v)


def children(pid):
    """Every descendant of pid."""
    kids, parents = [], {pid}
    for _ in range(4):
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                st = proc_stat(int(entry))
                if st and st[2] in parents and int(entry) not in kids:
                    found.append(int(entry))
        if not found:
            break
        kids += found
        parents = set(found)
    return kids


def comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return "?"


class Run:
    """The replayed run folder and its events file."""

    def __init__(self, seed, folder):
        self.folder = folder
        shutil.copytree(seed, folder, ignore=shutil.ignore_patterns("trainer.lock", "trainer.pid", "events.jsonl", "tb"))
        seed_events = [json.loads(line) for line in open(os.path.join(seed, "events.jsonl"))]
        self.metrics = next(e for e in seed_events if e["kind"] == "metrics")
        self.system = next(e for e in seed_events if e["kind"] == "system")
        self.png = os.path.join(folder, "samples", sorted(os.listdir(os.path.join(folder, "samples")))[0])
        self.checkpoint = os.path.join(folder, "checkpoints", sorted(os.listdir(os.path.join(folder, "checkpoints")))[0])
        # The run is alive: this process holds the lock and is the status event's pid.
        self.lock = os.open(os.path.join(folder, "trainer.lock"), os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.fcntl(self.lock, fcntl.F_OFD_SETLK, struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, 0, 0, 0))
        with open(os.path.join(folder, "trainer.pid"), "w") as f:
            f.write("%d\n" % os.getpid())
        self.events = open(os.path.join(folder, "events.jsonl"), "a")
        self.step, self.t0 = 0, time.time()
        self.written = 0
        self.loss = [1.4, 0.7]
        head = [e for e in seed_events if e["kind"] in ("status", "data")][:2]
        head[0].update(pid=os.getpid(), total_steps=10**9, t=self.t0)
        for e in head:
            self.write(e)
        self.events.flush()

    def write(self, e):
        self.events.write(json.dumps(e, separators=(",", ":")) + "\n")
        self.written += 1

    def link(self, kind, dest):
        """A hard link of the seed's file of `kind` (an ext4 inode takes 65,000 links: then a copy
        becomes the file the next links share)."""
        src = getattr(self, kind)
        try:
            os.link(src, dest)
        except OSError as e:
            if e.errno != errno.EMLINK:
                raise
            shutil.copyfile(src, dest)
            setattr(self, kind, dest)

    def next_step(self):
        self.step += 1
        t = self.t0 + self.step / 85.0
        self.loss = [max(0.01, v + random.gauss(0, 0.02)) for v in self.loss]
        m = dict(self.metrics, step=self.step, t=t, loss_d=self.loss[0], loss_g=self.loss[1], total_steps=10**9, epoch=self.step // 2048)
        self.write(m)
        if self.step % 170 == 0:
            self.write(dict(self.system, step=self.step, t=t))
        if SAMPLE_EVERY and self.step % SAMPLE_EVERY == 0:
            name = "samples/step_%d.png" % self.step
            self.link("png", os.path.join(self.folder, name))
            self.write({"epoch": self.step // 2048, "kind": "sample", "path": name, "step": self.step, "t": t})
        if CHECKPOINT_EVERY and self.step % CHECKPOINT_EVERY == 0:
            k = self.step // CHECKPOINT_EVERY
            name = "checkpoints/checkpoint_%d.pt" % k
            self.link("checkpoint", os.path.join(self.folder, name))
            self.write({"epoch": k, "kind": "checkpoint", "path": name, "step": self.step, "t": t})


def main():
    app, seed, work, out = sys.argv[1:5]
    run = Run(seed, os.path.join(work, "soak-run"))
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=os.path.join(work, "home"), XDG_CONFIG_HOME=os.path.join(work, "home/.config"),
               XDG_CACHE_HOME=os.path.join(work, "home/.cache"), XDG_DATA_HOME=os.path.join(work, "home/.local/share"))
    os.makedirs(env["XDG_CONFIG_HOME"], exist_ok=True)
    cmd = [app, "--open-run", run.folder, "--workspace", os.path.join(work, "workspace")]
    if os.environ.get("BENCH_XVFB") == "1":  # a mapped, painted window on a virtual X server
        env["QT_QPA_PLATFORM"] = "xcb"
        cmd = ["xvfb-run", "-a", "-s", "-screen 0 1280x800x24"] + cmd
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "app.log"), "w"))
    samples, t_start = [], time.time()
    name = os.path.basename(app)[:15]  # /proc's comm

    def app_pid():
        """The app's pid: the launched process, or its descendant of the app's name (under xvfb-run)."""
        for pid in [proc.pid] + children(proc.pid):
            if comm(pid) == name:
                return pid
        return None
    last = {"t": t_start, "cpu": {}, "machine": machine_ticks()}

    def sample(phase):
        now = time.time()
        row = {"t": round(now - t_start, 3), "phase": phase, "events": run.written, "step": run.step, "procs": {}}
        main_pid = app_pid()
        for pid in ([main_pid] + children(main_pid)) if main_pid else []:
            st = proc_stat(pid)
            if not st:
                continue
            cpu0 = last["cpu"].get(pid, st[0])
            dt = max(now - last["t"], 1e-6)
            row["procs"][str(pid)] = {"name": "app" if pid == main_pid else comm(pid), "rss_mb": round(st[1], 2),
                                      "cpu_s": st[0], "cpu_percent": round(100 * (st[0] - cpu0) / dt, 1)}
            if pid == main_pid:
                row["procs"][str(pid)]["read_bytes"] = read_bytes(pid)
            last["cpu"][pid] = st[0]
        busy, total = machine_ticks()
        # The whole machine's CPU over the interval, in cores (the app's share included).
        row["machine_cores"] = round((os.cpu_count() or 1) * (busy - last["machine"][0]) / max(1, total - last["machine"][1]), 2)
        last["machine"] = (busy, total)
        last["t"] = now
        samples.append(row)
        if proc.poll() is not None:
            raise SystemExit("soak_replay: the app exited (%s); see %s" % (proc.returncode, os.path.join(work, "app.log")))

    # Let the app start and read the seed events.
    deadline = time.time() + 30
    while time.time() < deadline and not app_pid():
        time.sleep(0.5)
    time.sleep(5)
    sample("start")
    throttle = None
    if APP_SHARE < 1:
        throttle = Throttle(app_pid(), APP_SHARE)
        throttle.start()

    def steady(phase):
        t_end = time.time() + STEADY_S
        next_sample = time.time() + 1
        while time.time() < t_end:
            for _ in range(max(1, int(RATE / 10))):
                run.next_step()
            run.events.flush()
            time.sleep(0.1)
            if time.time() >= next_sample:
                sample(phase)
                next_sample += 1

    # A look at the app while it follows, before and after the flood (e.g. "perf record -g -p {pid}
    # -o FILE -- sleep 30"): BENCH_DURING_BEFORE, BENCH_DURING_AFTER, started with the phase.
    def look_start(var):
        cmd = os.environ.get(var)
        return subprocess.Popen(cmd.replace("{pid}", str(app_pid())), shell=True) if cmd else None

    def look_end(look):
        if look:
            try:
                look.wait(120)
            except subprocess.TimeoutExpired:
                look.kill()

    look = look_start("BENCH_DURING_BEFORE")
    steady("steady-before")
    look_end(look)
    flood_start = time.time()
    next_sample = time.time() + 1
    while run.written < EVENTS:
        for _ in range(2000):
            run.next_step()
        run.events.flush()
        time.sleep(0.02)
        if time.time() >= next_sample:
            sample("flood")
            next_sample = time.time() + 1
    # The app reads behind a flood: wait until it has caught up, so that steady-after measures
    # following, not catching up. Caught up: it reads next to nothing for 3 s in a row (its reads of
    # events.jsonl, /proc/PID/io). Its CPU is no sign of it: on a machine busy with other work a
    # starved app still catching up uses no more than its share of a core, which looked like
    # following (the 26% "after the flood" of results/soak-20261130-095222). The seconds this
    # takes are the bench's measure of lag.
    def wait_caught_up(phase):
        t0, calm = time.time(), 0
        while calm < 3 and time.time() - t0 < 1800:
            time.sleep(1)
            before = app_proc(samples[-1]) or {}
            sample(phase)
            after = app_proc(samples[-1]) or {}
            a, b = before.get("read_bytes"), after.get("read_bytes")
            calm = calm + 1 if a is not None and b is not None and b - a < CALM_READ_BYTES else 0
        return time.time() - t0

    flood_end = time.time()
    catch_up_s = wait_caught_up("catch-up")
    look = look_start("BENCH_DURING_AFTER")
    steady("steady-after")
    look_end(look)
    # Whether the app kept up in steady-after: the seconds it still reads once nothing more comes
    # (about 3 s, the calm it waits for, when it kept up).
    tail_s = wait_caught_up("tail")
    if throttle:
        throttle.stop()
    shot = os.environ.get("BENCH_SCREENSHOT")
    if shot:  # what a second app, opened now on the whole run, shows (it reads every event again)
        subprocess.run([app, "--open-run", run.folder, "--workspace", os.path.join(work, "workspace"), "--screenshot", shot, "--delay",
                        os.environ.get("BENCH_SCREENSHOT_DELAY_MS", "15000")], env=dict(env, QT_QPA_PLATFORM="offscreen"),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    at_end = os.environ.get("BENCH_AT_END")
    if at_end:  # e.g. a look inside the app before it goes: "gdb -p {pid} ..." ({pid}: the app's)
        subprocess.run(at_end.replace("{pid}", str(app_pid())), shell=True, timeout=300)
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()

    doc = {"events": run.written, "steps": run.step, "catch_up_s": round(catch_up_s, 1), "tail_s": round(tail_s, 1), "flood_s": round(flood_end - flood_start, 1),
           "rate": RATE, "steady_s": STEADY_S, "sample_every": SAMPLE_EVERY, "checkpoint_every": CHECKPOINT_EVERY, "app_share": APP_SHARE,
           "host": {"cpus": os.cpu_count()}, "samples": samples}
    with open(out + ".json", "w") as f:
        json.dump(doc, f)
    report(doc, out)


def series(doc, who):
    """(events, rss MB) of the app, or of its children summed."""
    pts = []
    for s in doc["samples"]:
        procs = s["procs"].values()
        rss = sum(p["rss_mb"] for p in procs if (p["name"] == "app") == (who == "app"))
        pts.append((s["events"], rss))
    return pts


def steady_cpu(doc, phase):
    """The app's CPU over a phase: its own CPU seconds (utime + stime, all its threads) per second
    of wall time, in % of a core, from the first sample of the phase (whose interval includes the
    phase change) to the last."""
    rows = [s for s in doc["samples"] if s["phase"] == phase]
    return cpu_between(rows[0], rows[-1]) if len(rows) > 1 else float("nan")


def app_proc(sample):
    return next((p for p in sample["procs"].values() if p["name"] == "app"), None)


def cpu_between(a, b):
    pa, pb = app_proc(a), app_proc(b)
    if not pa or not pb or b["t"] <= a["t"]:
        return float("nan")
    return 100 * (pb["cpu_s"] - pa["cpu_s"]) / (b["t"] - a["t"])


def steady_windows(doc, phase, window_s=20):
    """(app CPU %, machine cores busy) over each window_s of a phase: the spread of the figure."""
    rows = [s for s in doc["samples"] if s["phase"] == phase]
    out, i = [], 0
    while i < len(rows) - 1:
        j = i
        while j + 1 < len(rows) and rows[j + 1]["t"] - rows[i]["t"] <= window_s + 0.5:
            j += 1
        if j == i or rows[j]["t"] - rows[i]["t"] < window_s / 2:
            break
        busy = [s.get("machine_cores") for s in rows[i + 1: j + 1] if s.get("machine_cores") is not None]
        out.append((cpu_between(rows[i], rows[j]), sum(busy) / len(busy) if busy else float("nan")))
        i = j
    return out


def rss_by_million(doc):
    """The app's RSS when each further million events had been written (flood and after)."""
    out, next_m = [], 1_000_000
    for s in doc["samples"]:
        p = app_proc(s)
        if p and s["events"] >= next_m:
            out.append((next_m, p["rss_mb"]))
            next_m = (s["events"] // 1_000_000 + 1) * 1_000_000
    return out


def plot(app, kids, path):
    """RSS against events written, the app's and its children's, as a PNG (Pillow)."""
    from PIL import Image, ImageDraw

    w, h, m = 800, 400, 60
    img = Image.new("RGB", (w, h), "white")
    d = ImageDraw.Draw(img)
    xmax = max(1, max(e for e, _ in app))
    ymax = max(1.0, max(r for _, r in app + kids)) * 1.1
    d.line([(m, m), (m, h - m), (w - m, h - m)], fill="black")
    for i in range(6):  # grid and labels
        y = h - m - (h - 2 * m) * i / 5
        d.line([(m, y), (w - m, y)], fill=(225, 225, 225))
        d.text((5, y - 6), "%.0f MB" % (ymax * i / 5), fill="black")
        x = m + (w - 2 * m) * i / 5
        v = xmax * i / 5
        d.text((x - 20, h - m + 8), "%.1fM" % (v / 1e6) if xmax >= 1e6 else "%.0fk" % (v / 1e3), fill="black")
    d.text((w // 2 - 60, h - 25), "events written", fill="black")
    for pts, colour, label, row in ((app, (31, 119, 180), "app", 0), (kids, (214, 39, 40), "children (explore worker)", 1)):
        xy = [(m + (w - 2 * m) * e / xmax, h - m - (h - 2 * m) * r / ymax) for e, r in pts]
        if len(xy) > 1:
            d.line(xy, fill=colour, width=2)
        d.text((w - m - 200, m + 15 * row), label, fill=colour)
    img.save(path)


def report(doc, out):
    app, kids = series(doc, "app"), series(doc, "children")
    flood = [s for s in doc["samples"] if s["phase"] in ("flood", "catch-up")]
    print("events %d (steps %d), sample grid every %d, checkpoint every %d" % (doc["events"], doc["steps"], doc["sample_every"], doc["checkpoint_every"]))
    print("app RSS: start %.1f MB, after the flood %.1f MB, end %.1f MB" % (app[0][1], series({"samples": flood}, "app")[-1][1], app[-1][1]))
    if "catch_up_s" in doc:
        print("flood: %d events written in %.0f s; the app caught up %.0f s after it ended" % (doc["events"], doc["flood_s"], doc["catch_up_s"]))
    if "tail_s" in doc:
        print("after steady-after, the app read for %.0f s more (3 s: it kept up)" % (doc["tail_s"] - 3))
    before = [s for s in doc["samples"] if s["phase"] == "steady-before"]
    if before and flood and app_proc(before[-1]) and app_proc(flood[-1]):
        # The app's work for the flood's events, from its own CPU seconds: little affected by how
        # busy the machine was, unlike the seconds the flood took.
        cpu = app_proc(flood[-1])["cpu_s"] - app_proc(before[-1])["cpu_s"]
        events = flood[-1]["events"] - before[-1]["events"]
        print("the app's CPU for the flood: %.0f s, %.1f us per event" % (cpu, 1e6 * cpu / max(1, events)))
    if doc.get("app_share", 1) < 1:
        print("the app ran %.0f%% of the time (BENCH_APP_SHARE: SIGSTOP/SIGCONT every 100 ms)" % (100 * doc["app_share"]))
    print("children RSS (explore worker...): start %.1f MB, end %.1f MB" % (kids[0][1], kids[-1][1]))
    print("app CPU at %g events/s: %.1f%% of a core before, %.1f%% after %d events" % (doc["rate"], steady_cpu(doc, "steady-before"),
                                                                                    steady_cpu(doc, "steady-after"), doc["events"]))
    for phase in ("steady-before", "steady-after"):
        w = steady_windows(doc, phase)
        if w:
            print("  %s, per 20 s: %s (the machine: %s cores busy of %s)" % (phase, ", ".join("%.1f%%" % c for c, _ in w),
                                                                              ", ".join("%.2f" % m for _, m in w), doc["host"]["cpus"]))
    by_m = rss_by_million(doc)
    if len(by_m) > 1:
        print("app RSS at each million events written: " + ", ".join("%dM %.1f" % (e // 1_000_000, r) for e, r in by_m))
        steps = [b[1] - a[1] for a, b in zip(by_m, by_m[1:])]
        print("  per further million: " + ", ".join("%+.1f" % d for d in steps) + " MB; end %.1f MB, %+.1f MB since %dM" % (
            app[-1][1], app[-1][1] - by_m[-1][1], by_m[-1][0] // 1_000_000))
    plot(app, kids, out + ".png")
    print("JSON: %s.json\nplot: %s.png" % (out, out))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--report":  # the figures and the plot of an earlier run's JSON
        report(json.load(open(sys.argv[2])), sys.argv[2][: -len(".json")])
    else:
        main()
