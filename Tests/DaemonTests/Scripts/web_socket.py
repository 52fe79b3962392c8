#!/usr/bin/python3
"""The web page's WebSocket driven by an independent client (Debian's python3-websockets).

Usage: web_socket.py URL SCENARIO [ARG]; prints one JSON object with what happened.
  commands LINE...   sends each MPD command line, returns the answers
  origin ORIGIN      connects with that Origin header
  host HOST          connects with that Host header
  oversized          sends a 100 KB message
  fragmented         sends "status" in three fragments, then pings
  slow               sends many commands and never reads, then checks a second client
  idle               idles; ARG is a file whose appearance means the test made a change
"""
import asyncio
import json
import os
import sys
import time

import websockets

URL, SCENARIO, ARGS = sys.argv[1], sys.argv[2], sys.argv[3:]


async def answer(ws):
    """Bytes until an OK or ACK line ends an answer."""
    data = b""
    while True:
        data += await asyncio.wait_for(ws.recv(), 10)
        lines = data.split(b"\n")
        if any(line == b"OK" or line.startswith(b"ACK ") for line in lines[:-1]):
            return data.decode(errors="replace")


async def run():
    if SCENARIO == "commands":
        async with websockets.connect(URL, subprotocols=["mpd"]) as ws:
            greeting = (await ws.recv()).decode()
            answers = []
            for line in ARGS:
                await ws.send(line + "\n")
                answers.append(await answer(ws))
            return {"greeting": greeting, "answers": answers}
    if SCENARIO in ("origin", "host"):
        headers = {"Origin": ARGS[0]} if SCENARIO == "origin" else {"Host": ARGS[0]}
        try:
            kwargs = {"origin": ARGS[0]} if SCENARIO == "origin" else {"extra_headers": headers}
            async with websockets.connect(URL, subprotocols=["mpd"], **kwargs) as ws:
                return {"opened": True, "greeting": (await ws.recv()).decode()}
        except Exception as error:
            return {"opened": False, "error": type(error).__name__}
    if SCENARIO == "oversized":
        async with websockets.connect(URL, subprotocols=["mpd"], max_size=None) as ws:
            await ws.recv()
            await ws.send("x" * 100_000)
            try:
                await asyncio.wait_for(ws.recv(), 10)
                return {"closed": False}
            except websockets.ConnectionClosed as closed:
                return {"closed": True, "code": closed.rcvd.code if closed.rcvd else None}
    if SCENARIO == "fragmented":
        async with websockets.connect(URL, subprotocols=["mpd"]) as ws:
            await ws.recv()
            await ws.send(iter(["sta", "tu", "s\n"]))
            status = await answer(ws)
            pong = await ws.ping()
            started = time.monotonic()
            await asyncio.wait_for(pong, 5)
            return {"status": status, "pong": time.monotonic() - started < 5}
    if SCENARIO == "slow":
        ws = await websockets.connect(URL, subprotocols=["mpd"], max_queue=1, read_limit=1024)
        ws.transport.pause_reading()
        dropped = False
        try:
            for _ in range(int(ARGS[0])):
                await ws.send("listallinfo\n")
        except websockets.ConnectionClosed:
            dropped = True  # the daemon ended the session whose answers nobody read
        async with websockets.connect(URL, subprotocols=["mpd"]) as other:
            await other.recv()
            await other.send("ping\n")
            pinged = await answer(other)
        ws.transport.close()
        return {"other": pinged, "dropped": dropped}
    if SCENARIO == "idle":
        async with websockets.connect(URL, subprotocols=["mpd"]) as ws:
            await ws.recv()
            await ws.send("idle playlist\n")
            open(ARGS[0], "w").close()
            return {"idle": await answer(ws)}
    return {"error": "unknown scenario"}


print(json.dumps(asyncio.run(run())))
