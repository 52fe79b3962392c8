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
  close              closes with code 1000 and reports the code the server answered
  unmasked           raw frames: a frame a client sent without a mask (must be refused)
  badopcode          raw frames: a masked frame with a reserved opcode (must be refused)
  garbage            a request that is not HTTP at all
"""
import asyncio
import base64
import json
import os
import socket
import struct
import sys
import time
from urllib.parse import urlparse

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
    if SCENARIO == "close":
        ws = await websockets.connect(URL, subprotocols=["mpd"])
        await ws.recv()
        await ws.close(code=1000, reason="bye")
        return {"code": ws.close_rcvd.code if ws.close_rcvd else None}
    if SCENARIO in ("unmasked", "badopcode", "garbage"):
        return raw(SCENARIO)
    return {"error": "unknown scenario"}


def raw(scenario):
    """Frames written by hand, as no well-behaved library would: what the server answers."""
    address = urlparse(URL)
    connection = socket.create_connection((address.hostname, address.port), timeout=10)
    if scenario == "garbage":
        connection.sendall(b"\x16\x03\x01 GARBAGE \x00\xff\r\n\r\n")
        try:
            answer = connection.recv(4096)
        except (ConnectionResetError, socket.timeout):
            answer = b""
        return {"answer": answer.decode(errors="replace")[:40]}
    key = base64.b64encode(os.urandom(16)).decode()
    origin = "http://%s:%d" % (address.hostname, address.port)
    connection.sendall(("GET / HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: mpd\r\n"
                        "Origin: %s\r\n\r\n" % (address.hostname, address.port, key, origin)).encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += connection.recv(4096)
    head, data = data.split(b"\r\n\r\n", 1)
    payload = b"status\n"
    if scenario == "unmasked":
        frame = bytes([0x81, len(payload)]) + payload
    else:
        mask = os.urandom(4)
        frame = bytes([0x83, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    connection.sendall(frame)
    code, text = None, b""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and code is None and not text.endswith(b"OK\n"):
        while len(data) >= 2:
            opcode, length = data[0] & 0x0F, data[1] & 0x7F
            start = 2 if length < 126 else 4
            if length == 126 and len(data) >= 4:
                length = struct.unpack(">H", data[2:4])[0]
            if len(data) < start + length:
                break
            body, data = data[start:start + length], data[start + length:]
            if opcode == 0x8:
                code = struct.unpack(">H", body[:2])[0] if len(body) >= 2 else 1005
                break
            text += body
        if code is not None or text.endswith(b"OK\n"):
            break
        try:
            more = connection.recv(4096)
        except (ConnectionResetError, socket.timeout):
            more = b""
        if not more:
            break
        data += more
    return {"upgraded": head.startswith(b"HTTP/1.1 101"), "code": code, "answer": text.decode(errors="replace")}


print(json.dumps(asyncio.run(run())))
