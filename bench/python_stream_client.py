"""The way Python benchmark clients read token streams (vLLM's and SGLang's benchmark_serving:
asyncio + aiohttp, one session, iterate over the response lines, json.loads every chunk), run
against speedmatrix's self-test streamer. Prints tokens received per second.

  python3 bench/python_stream_client.py --url http://127.0.0.1:PORT/v1/completions --streams 64 --seconds 3
"""
import argparse
import asyncio
import json
import time

import aiohttp


async def stream(session, url, state):
    body = {"model": "selftest", "prompt": "hi", "max_tokens": 1000000000, "stream": True}
    started = False
    async with session.post(url, json=body) as resp:
        async for raw in resp.content:
            line = raw.strip()
            if not line.startswith(b"data:"):
                continue
            data = line[5:].strip()
            if data == b"[DONE]":
                break
            chunk = json.loads(data)
            if chunk.get("choices") and chunk["choices"][0].get("text"):
                if not started:
                    started = True
                    state["started"] += 1
                now = time.perf_counter()
                if state["start"] <= now < state["end"]:
                    state["tokens"] += 1


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--streams", type=int, default=64)
    p.add_argument("--seconds", type=float, default=3)
    a = p.parse_args()
    warmup = 0.5
    # As speedmatrix's self-test does: every stream streaming (or 20 s passed), a warm-up, then
    # the window.
    state = {"tokens": 0, "started": 0, "start": float("inf"), "end": float("inf")}
    timeout = aiohttp.ClientTimeout(total=None, sock_read=30)
    connector = aiohttp.TCPConnector(limit=a.streams)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector, read_bufsize=2**16) as session:
        tasks = [asyncio.create_task(stream(session, a.url, state)) for _ in range(a.streams)]
        ramp_end = time.perf_counter() + 20
        while state["started"] < a.streams and time.perf_counter() < ramp_end:
            await asyncio.sleep(0.05)
        state["start"] = time.perf_counter() + warmup
        state["end"] = state["start"] + a.seconds
        await asyncio.sleep(warmup + a.seconds)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    print(state["tokens"] / a.seconds)


asyncio.run(main())
