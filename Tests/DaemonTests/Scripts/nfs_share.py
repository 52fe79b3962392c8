"""Drives a Nimbus daemon against an NFS export inside a private network namespace (where
nfs-ganesha owns port 2049): mounts, plays, seeks, pins, stops the server and plays again.

Usage: nfs_share.py MPD_PORT GANESHA_PID CAPTURE_FILE OUT_DIR
Prints one JSON object of the answers; copies the capture after each play into OUT_DIR.
"""
import json
import os
import shutil
import signal
import socket
import sys
import time

port, ganesha, capture, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
connection = socket.create_connection(("127.0.0.1", port), timeout=60)
reader = connection.makefile("rb")
reader.readline()


def request(command):
    connection.sendall(command.encode() + b"\n")
    lines = []
    while True:
        line = reader.readline().decode().rstrip("\n")
        lines.append(line)
        if line == "OK" or line.startswith("ACK") or not line:
            return lines


def wait(condition, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def play(commands, name):
    for command in commands:
        request(command)
    wait(lambda: "state: stop" in request("status") and os.path.exists(capture))
    shutil.copy(capture, os.path.join(out, name))


result = {}
result["missing"] = request("mount nas nfs://127.0.0.1/nowhere?version=4")
result["mount"] = request("mount nas nfs://127.0.0.1/music?version=4")
result["listmounts"] = request("listmounts")
result["indexed"] = wait(lambda: "songs: 2" in request("stats"))
result["record"] = request("lsinfo nas/Band/Album/02.flac")
play(["clear", "add nas/Band/Album/01.flac", "play"], "first.raw")
play(["clear", "add nas/Band/Album/02.flac", "seek 0 1"], "seek.raw")
request("pin nas/Band")
result["pinned"] = wait(lambda: "state: completed" in request("listpins"))
os.kill(ganesha, signal.SIGTERM)
result["serverGone"] = wait(lambda: socket.socket().connect_ex(("127.0.0.1", 2049)) != 0, 30)
play(["clear", "add nas/Band/Album/02.flac", "play"], "offline.raw")
result["ping"] = request("ping")
print(json.dumps(result), flush=True)
