#!/usr/bin/python3
"""Helper of bench_remote.sh: runs an attach command (local `streetgan-trainer attach RUN` or
`streetgan-trainer remote ... attach RUN`), stamps each line when it arrives, and prints one JSON
document with the latency of live events: receive wall time minus the event's "t" (the time the
trainer wrote it; same machine, same clock). --skip-first: the first event after the live line
is not counted (a TensorBoard run's step written before the follower started: it is handed out
once the run is quiet, after the live line). Usage: remote_latency.py [--skip-first] -- COMMAND..."""
import json, os, subprocess, sys, time

def main(argv):
    cmd = argv[argv.index("--") + 1:]
    skip = 1 if "--skip-first" in argv[:argv.index("--")] else 0
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, bufsize=0)
    live, lat, events, buf = False, [], 0, b""
    while True:
        # os.read: whatever has arrived, in one call (an unbuffered pipe has no read1, and reading
        # it a byte at a time lags behind a fast run on a busy machine, which then reads as latency).
        chunk = os.read(proc.stdout.fileno(), 65536)
        now = time.time()
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                j = json.loads(line)
            except ValueError:
                continue
            if j.get("live"):
                live = True
            ev = j.get("event")
            if ev is not None:
                events += 1
                if live and isinstance(ev.get("t"), (int, float)):
                    if skip:
                        skip -= 1
                        continue
                    lat.append(now - ev["t"])
    rc = proc.wait()
    lat.sort()
    def pct(p):
        return lat[min(len(lat) - 1, int(round(p / 100.0 * (len(lat) - 1))))] * 1000 if lat else None
    print(json.dumps({"exit": rc, "events": events, "live_events": len(lat), "median_ms": pct(50), "p90_ms": pct(90),
                      "p99_ms": pct(99), "max_ms": lat[-1] * 1000 if lat else None}))
    return 0 if rc == 0 and lat else 1

if __name__ == "__main__":
    sys.exit(main(sys.argv))
