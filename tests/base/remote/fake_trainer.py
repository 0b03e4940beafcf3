#!/usr/bin/python3
"""A stand-in for streetgan-trainer's attach/ls/control (docs/attach-protocol.md) that the remote
tests run over SSH when they want the transport alone: it follows
RUN/events.jsonl as the real attach does, and ends once RUN/done exists and every line was sent
(state: the file's content), or when its stdin closes (the SSH channel went away) or RUN is
removed. Commands read on stdin are appended to RUN/commands.log and
answered with {"reply":{"ok":true,"cmd":...}}. `ls`/`control` print their arguments as JSON."""
import json, os, sys, threading, time

def attach(run, offset, seconds):
    path = os.path.join(run, "events.jsonl")
    out = sys.stdout
    lock = threading.Lock()

    def emit(obj):
        with lock:
            out.write(json.dumps(obj, separators=(",", ":")) + "\n")
            out.flush()

    gone = threading.Event()  # stdin closed: the SSH channel is gone (our clients never send EOF)

    def commands():
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            try:
                cmd = json.loads(line)
            except ValueError:
                emit({"reply": {"ok": False, "error": "not JSON"}})
                continue
            with open(os.path.join(run, "commands.log"), "a") as f:
                f.write(line + "\n")
            emit({"reply": {"ok": True, "cmd": cmd.get("cmd")}})
        gone.set()
    threading.Thread(target=commands, daemon=True).start()

    pos = offset
    live_sent = False
    start = time.time()
    while True:
        # Unlike the real attach (which ends with its daemon), nothing else would end us: leave
        # when the client is gone or the test removed the run.
        if gone.is_set() or not os.path.isdir(run):
            return 0
        done = os.path.exists(os.path.join(run, "done"))
        try:
            with open(path, "rb") as f:
                f.seek(pos)
                data = f.read()
        except FileNotFoundError:
            data = b""
        while True:
            nl = data.find(b"\n")
            if nl < 0:
                break
            line, data = data[:nl], data[nl + 1:]
            end = pos + nl + 1
            try:
                ev = json.loads(line)
                emit({"offset": pos, "end": end, "event": ev})
            except ValueError:
                pass
            pos = end
        if not live_sent:
            emit({"live": True, "offset": pos, "state": "running"})
            live_sent = True
        if done:
            state = open(os.path.join(run, "done")).read().strip() or "finished"
            emit({"end": True, "offset": pos, "state": state})
            return 0
        if seconds and time.time() - start > seconds:
            return 0
        time.sleep(0.005)

def main(argv):
    if len(argv) >= 2 and argv[0] == "attach":
        run, offset, seconds = argv[1], 0, 0
        i = 2
        while i < len(argv):
            if argv[i] == "--from-offset":
                offset = int(argv[i + 1]); i += 2
            elif argv[i] == "--seconds":
                seconds = float(argv[i + 1]); i += 2
            else:
                sys.stderr.write("fake_trainer: unknown option " + argv[i] + "\n"); return 2
        if not os.path.isdir(run):
            sys.stderr.write("fake_trainer: no run directory " + run + "\n"); return 5
        return attach(run, offset, seconds)
    print(json.dumps({"argv": argv}))
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
