#!/usr/bin/python3
"""Helper of bench_remote.sh: a TCP proxy on loopback that delays every byte by half the round
trip in each direction, to measure SSH and SFTP over a long link without netem (which needs root
and a network namespace). Usage: delay_proxy.py --rtt-ms 100 --listen PORT --to HOST:PORT
Prints "ready PORT" on stdout once it listens.

It models latency only: bytes are queued, not dropped, and the proxy reads as fast as it can, so
TCP itself sees a short loopback hop; what the delay limits is what waits on answers (SSH channel
windows, SFTP requests in flight, round trips of the connection set-up), which is the point.
Each direction keeps its order; TCP_NODELAY on both sides (asyncio's default) so that the proxy adds
no Nagle delay of its own."""
import argparse, asyncio, socket, sys, time


async def pump(reader, writer, delay):
    queue = asyncio.Queue()

    async def read_side():
        try:
            while True:
                data = await reader.read(1 << 18)
                queue.put_nowait((time.monotonic() + delay, data))
                if not data:
                    return
        except (ConnectionError, OSError):
            queue.put_nowait((time.monotonic() + delay, b""))

    async def write_side():
        try:
            while True:
                due, data = await queue.get()
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not data:
                    if writer.can_write_eof():
                        writer.write_eof()
                    return
                writer.write(data)
                # Drain only when a lot is buffered: the delay line must not slow the sender.
                if writer.transport.get_write_buffer_size() > (64 << 20):
                    await writer.drain()
        except (ConnectionError, OSError):
            pass

    await asyncio.gather(read_side(), write_side())


async def handle(client_reader, client_writer, target, delay):
    host, port = target
    try:
        server_reader, server_writer = await asyncio.open_connection(host, port)
    except OSError:
        client_writer.close()
        return
    for w in (client_writer, server_writer):
        sock = w.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    await asyncio.gather(pump(client_reader, server_writer, delay), pump(server_reader, client_writer, delay))
    for w in (client_writer, server_writer):
        w.close()


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rtt-ms", type=float, required=True)
    ap.add_argument("--listen", type=int, default=0)
    ap.add_argument("--to", required=True)
    a = ap.parse_args()
    host, port = a.to.rsplit(":", 1)
    delay = a.rtt_ms / 2000.0
    server = await asyncio.start_server(lambda r, w: handle(r, w, (host, int(port)), delay), "127.0.0.1", a.listen)
    print("ready %d" % server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
