#!/usr/bin/python3
"""Seeded mutations of what reaches the web port: HTTP requests (the page's and the Subsonic
API's under /rest/), WebSocket handshakes and frames (flipped bytes, cut short, repeated, huge declared lengths, reserved bits and opcodes).

Usage: web_fuzz.py HOST PORT SEED CASES
Each case is one connection that sends its bytes and reads whatever comes back for a moment.
Prints one JSON object: cases sent, how many got any answer, and whether the page and its
WebSocket still answer properly afterwards.
"""
import base64
import json
import os
import random
import socket
import struct
import sys
import time

host, port, seed, cases = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)

REQUESTS = [
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAccept-Encoding: gzip\r\n\r\n" % port,
    b"GET /app.js HTTP/1.1\r\nHost: localhost\r\nIf-None-Match: \"abc\"\r\n\r\n",
    b"GET /cover?album=First%%20Light&artist=Alpha%%20Band&size=256 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port,
    b"HEAD /about.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello",
    # The Subsonic API (the test daemon has the user anna): GET, form POST, ranges, every kind of id.
    b"GET /rest/search3.view?u=anna&p=sesame&f=json&query=%%22%%22&songCount=500 HTTP/1.1\r\nHost: phone\r\n\r\n",
    b"GET /rest/getAlbumList2?u=anna&p=enc:736573616d65&type=newest&size=5&f=xml HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /rest/stream?u=anna&p=sesame&id=s45aabf16c2c18465 HTTP/1.1\r\nHost: x\r\nRange: bytes=100-200\r\n\r\n",
    b"GET /rest/getCoverArt?u=anna&p=sesame&id=ac2b40bda1e814478&size=64 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /rest/getMusicDirectory?u=anna&p=sesame&id=d7436f068439ea00a&f=jsonp&callback=cb HTTP/1.1\r\nHost: x\r\n\r\n",
    b"POST /rest/getAlbum HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 48\r\n\r\n"
    b"u=anna&p=sesame&f=json&id=ac2b40bda1e814478&x=1",
    b"OPTIONS /rest/ping HTTP/1.1\r\nHost: x\r\nOrigin: http://a\r\nAccess-Control-Request-Method: POST\r\n\r\n",
]


def handshake():
    key = base64.b64encode(rng.randbytes(16))
    return (b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: mpd\r\n"
            b"Origin: http://127.0.0.1:%d\r\n\r\n" % (port, key, port))


def frame(payload, opcode=0x1, fin=True, mask=True, rsv=0, declared=None):
    length = len(payload) if declared is None else declared
    head = bytes([(0x80 if fin else 0) | (rsv << 4) | opcode])
    bit = 0x80 if mask else 0
    if length < 126:
        head += bytes([bit | length])
    elif length < 65536:
        head += bytes([bit | 126]) + struct.pack(">H", length)
    else:
        head += bytes([bit | 127]) + struct.pack(">Q", length)
    if not mask:
        return head + payload
    key = rng.randbytes(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def mutate(data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        choice = rng.random()
        if not data:
            break
        where = rng.randrange(len(data))
        if choice < 0.4:
            data[where] = rng.randrange(256)
        elif choice < 0.55:
            del data[where:where + rng.randint(1, 16)]
        elif choice < 0.7:
            data[where:where] = data[where:where + rng.randint(1, 64)] * rng.randint(2, 40)
        elif choice < 0.8:
            data[where:where] = b"\r\n"
        elif choice < 0.9:
            data = data[:where]
        else:
            data[where:where] = b"X" * rng.choice([100, 5000, 70000])
    return bytes(data)


def websocket_case():
    frames = []
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        if kind < 0.3:
            frames.append(frame(b"status\n"))
        elif kind < 0.45:
            frames.append(frame(b"sta", fin=False) + frame(b"tus\n", opcode=0x0))
        elif kind < 0.55:
            frames.append(frame(b"", opcode=rng.choice([0x3, 0x4, 0x7, 0xB, 0xF])))
        elif kind < 0.65:
            frames.append(frame(b"x", rsv=rng.randint(1, 7)))
        elif kind < 0.75:
            frames.append(frame(b"x" * 10, declared=rng.choice([2 ** 63 - 1, 2 ** 32, 70000])))
        elif kind < 0.85:
            frames.append(frame(rng.randbytes(rng.randint(1, 200)), opcode=rng.choice([0x1, 0x2, 0x8, 0x9, 0xA])))
        else:
            frames.append(mutate(frame(b"playlistinfo\n")))
    return handshake() + b"".join(frames)


def send(data):
    try:
        with socket.create_connection((host, port), timeout=2) as connection:
            connection.sendall(data)
            connection.settimeout(0.1)
            try:
                return bool(connection.recv(4096))
            except (socket.timeout, ConnectionResetError):
                return False
    except (BrokenPipeError, ConnectionResetError, socket.timeout):
        return False


answered = 0
for case in range(cases):
    kind = rng.random()
    if kind < 0.45:
        data = mutate(rng.choice(REQUESTS))
    elif kind < 0.55:
        data = mutate(handshake())
    else:
        data = websocket_case()
    answered += send(data)


def page_served():
    with socket.create_connection((host, port), timeout=5) as connection:
        connection.sendall(REQUESTS[0])
        return connection.recv(64).startswith(b"HTTP/1.1 200")


def websocket_answers():
    with socket.create_connection((host, port), timeout=5) as connection:
        connection.sendall(handshake())
        data = b""
        deadline = time.monotonic() + 5
        while b"OK MPD" not in data and time.monotonic() < deadline:
            data += connection.recv(4096)
        connection.sendall(frame(b"ping\n"))
        while not data.endswith(b"OK\n") and time.monotonic() < deadline:
            data += connection.recv(4096)
        return data.endswith(b"OK\n")


def api_answers():
    with socket.create_connection((host, port), timeout=5) as connection:
        connection.sendall(b"GET /rest/ping?u=anna&p=sesame&f=json HTTP/1.1\r\nHost: phone\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            chunk = connection.recv(4096)
            if not chunk:
                break
            data += chunk
        return data.startswith(b"HTTP/1.1 200") and b'"status":"ok"' in data


print(json.dumps({"cases": cases, "answered": answered, "pageServed": page_served(), "websocket": websocket_answers(),
                  "api": api_answers()}))
