#!/usr/bin/env python3
"""The fidelity benchmark's comparison client: vLLM's benchmark request function in its shape.

`vllm bench serve` streams chat completions with `async_request_openai_chat_completions`
(vllm/benchmarks/lib/endpoint_request_func.py): one aiohttp ClientSession over a TCPConnector limited to the
concurrency, `response.content.iter_any()`, each transport chunk stripped and split into SSE messages by its
StreamedResponseHandler, and per message `time.perf_counter()` taken before `json.loads`. This client does the same
against the benchmark's wire server, `--lanes` requests at a time, one after another per lane, and reports how late
it saw each content chunk: its perf_counter (CLOCK_MONOTONIC, the clock the server stamps `stamp_ns` with) minus the
stamp. Where aiohttp is not installed (or with --stdlib) it speaks HTTP/1.1 over the standard library's asyncio
streams instead, with the same message handling: the floor a Python asyncio client reaches without aiohttp.

  python3 compare-client.py --url http://127.0.0.1:PORT --lanes 100 --seconds 20 --first-seed N --out FILE

Writes each content chunk's lateness in ms (float64, native order) to --out, and prints one JSON line.
"""

import argparse
import array
import asyncio
import codecs
import json
import sys
import time

try:
    import aiohttp
except ImportError:  # the standard library's client below stands in
    aiohttp = None


class MessageSplitter:
    """SSE messages out of transport chunks, as vLLM's StreamedResponseHandler finds them: split at blank lines
    ("\\n\\n"); a trailing `data: ` message counts as whole once it is `[DONE]` or parses as JSON (the chunks
    arrive stripped, so the last message of a chunk has lost its blank line)."""

    def __init__(self):
        self.pending = ""
        self.decoder = codecs.getincrementaldecoder("utf-8")()

    def add(self, chunk_bytes):
        self.pending += self.decoder.decode(chunk_bytes)
        found = []
        while "\n\n" in self.pending:
            head, self.pending = self.pending.split("\n\n", 1)
            head = head.strip()
            if head:
                found.append(head)
        if self.pending.startswith("data: "):
            body = self.pending[len("data: "):].strip()
            whole = body == "[DONE]"
            if not whole and body:
                try:
                    json.loads(body)
                    whole = True
                except json.JSONDecodeError:
                    whole = False
            if whole:
                found.append(self.pending.strip())
                self.pending = ""
        return found


class Tally:
    def __init__(self, measure_from_ns):
        self.measure_from_ns = measure_from_ns
        self.lateness = array.array("d")
        self.requests = 0
        self.events = 0
        self.errors = 0


def on_messages(messages, tally):
    for message in messages:
        if message.startswith(":"):
            continue
        body = message[len("data: "):] if message.startswith("data: ") else message
        if body == "[DONE]":
            continue
        timestamp = time.perf_counter_ns()
        data = json.loads(body)
        choices = data.get("choices")
        if not choices:
            continue
        content = choices[0]["delta"].get("content")
        if not content or timestamp < tally.measure_from_ns:
            continue
        tally.events += 1
        stamp = data.get("stamp_ns")
        if stamp is not None:
            tally.lateness.append((timestamp - int(stamp)) / 1e6)


def payload(seed):
    return {
        "model": "bench",
        "messages": [{"role": "user", "content": f"stream {seed}"}],
        "max_completion_tokens": 4096,
        "stream": True,
        "stream_options": {"include_usage": True},
        "seed": seed,
    }


async def aiohttp_lanes(args, seeds, until_ns, tally):
    connector = aiohttp.TCPConnector(
        limit=args.lanes,
        limit_per_host=args.lanes,
        ttl_dns_cache=300,
        use_dns_cache=True,
        keepalive_timeout=60,
        enable_cleanup_closed=True,
        force_close=False,
    )
    url = f"{args.url}/v1/chat/completions"
    async with aiohttp.ClientSession(
        connector=connector, trust_env=True, timeout=aiohttp.ClientTimeout(total=6 * 60 * 60)
    ) as session:

        async def lane():
            while time.perf_counter_ns() < until_ns:
                seed = next(seeds)
                try:
                    async with session.post(
                        url=url, json=payload(seed), headers={"Content-Type": "application/json"}
                    ) as response:
                        if response.status != 200:
                            tally.errors += 1
                            continue
                        splitter = MessageSplitter()
                        async for chunk_bytes in response.content.iter_any():
                            chunk_bytes = chunk_bytes.strip()
                            if chunk_bytes:
                                on_messages(splitter.add(chunk_bytes), tally)
                    tally.requests += 1
                except Exception:  # noqa: BLE001 — a failed request is counted, as vLLM's client does
                    tally.errors += 1

        await asyncio.gather(*(lane() for _ in range(args.lanes)))


class ChunkedBody:
    """HTTP/1.1 chunked transfer decoding over whatever a socket read returned: the payload bytes each read
    completes, and whether the terminating chunk came."""

    def __init__(self):
        self.buf = b""
        self.done = False

    def feed(self, data):
        self.buf += data
        out = []
        while True:
            eol = self.buf.find(b"\r\n")
            if eol < 0:
                break
            size = int(self.buf[:eol].split(b";", 1)[0], 16)
            if size == 0:
                # the last chunk's size line, then the (empty) trailer's line end
                if len(self.buf) >= eol + 4:
                    self.done = True
                    self.buf = b""
                break
            if len(self.buf) < eol + 2 + size + 2:
                break
            out.append(self.buf[eol + 2:eol + 2 + size])
            self.buf = self.buf[eol + 2 + size + 2:]
        return b"".join(out)


async def stdlib_lanes(args, seeds, until_ns, tally):
    host, port = args.url.split("//", 1)[1].split(":")
    port = int(port.rstrip("/"))

    async def lane():
        reader, writer = await asyncio.open_connection(host, port)
        try:
            while time.perf_counter_ns() < until_ns:
                seed = next(seeds)
                body = json.dumps(payload(seed)).encode()
                writer.write(
                    b"POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                    b"Accept: text/event-stream\r\nContent-Length: %d\r\n\r\n%s" % (host.encode(), len(body), body)
                )
                await writer.drain()
                head = await reader.readuntil(b"\r\n\r\n")
                if b" 200 " not in head.split(b"\r\n", 1)[0]:
                    tally.errors += 1
                    break
                chunked = ChunkedBody()
                splitter = MessageSplitter()
                while not chunked.done:
                    data = await reader.read(65536)
                    if not data:
                        raise ConnectionError("the server closed the connection mid-reply")
                    chunk_bytes = chunked.feed(data).strip()
                    if chunk_bytes:
                        on_messages(splitter.add(chunk_bytes), tally)
                tally.requests += 1
        except Exception:  # noqa: BLE001
            tally.errors += 1
        finally:
            writer.close()

    await asyncio.gather(*(lane() for _ in range(args.lanes)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--lanes", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--warmup-seconds", type=float, default=2)
    parser.add_argument("--first-seed", type=int, default=1 << 40)
    parser.add_argument("--out", default=None)
    parser.add_argument("--stdlib", action="store_true", help="use asyncio streams even where aiohttp is installed")
    args = parser.parse_args()

    use_aiohttp = aiohttp is not None and not args.stdlib
    start = time.perf_counter_ns()
    measure_from = start + int(args.warmup_seconds * 1e9)
    until = measure_from + int(args.seconds * 1e9)
    tally = Tally(measure_from)

    def seed_source():
        s = args.first_seed
        while True:
            yield s
            s += 1

    run = aiohttp_lanes if use_aiohttp else stdlib_lanes
    asyncio.run(run(args, seed_source(), until, tally))
    wall = (time.perf_counter_ns() - measure_from) / 1e9
    if args.out:
        with open(args.out, "wb") as f:
            tally.lateness.tofile(f)
    client = (
        f"aiohttp {aiohttp.__version__}, vLLM's request function" if use_aiohttp else "asyncio streams (no aiohttp)"
    )
    print(
        json.dumps(
            {
                "client": f"{client}, Python {sys.version.split()[0]}",
                "requests": tally.requests,
                "events": tally.events,
                "stamped": len(tally.lateness),
                "errors": tally.errors,
                "seconds": wall,
                "cpu_seconds": time.process_time(),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
