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
    state = {"tokens": 0, "start": time.perf_counter() + warmup, "end": time.perf_counter() + warmup + a.seconds}
    timeout = aiohttp.ClientTimeout(total=None, sock_read=30)
    connector = aiohttp.TCPConnector(limit=a.streams)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector, read_bufsize=2**16) as session:
        tasks = [asyncio.create_task(stream(session, a.url, state)) for _ in range(a.streams)]
        await asyncio.sleep(warmup + a.seconds)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    print(state["tokens"] / a.seconds)


asyncio.run(main())
