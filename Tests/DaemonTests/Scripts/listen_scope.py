#!/usr/bin/python3
"""Where the daemon listens, seen the way an attacker on the LAN sees it.

Usage: listen_scope.py NIMBUSD WORKDIR SCENARIO; prints one JSON object.

Two network namespaces joined by a veth pair: the box (10.213.0.1/24, fd42::1/64, and its own
loopback) and a LAN neighbour (10.213.0.2/24, fd42::2/64). nimbusd runs inside the box with the
scenario's config; the neighbour then tries the MPD port, the web page over HTTP, a WebSocket
upgrade carrying the MPD protocol, `/rest/ping` on the web port and the API's own port, over
IPv4 and IPv6; the box itself tries the same on 127.0.0.1. Each probe answers `refused`,
`timeout` or what the server said first (a status line or the greeting).

Scenarios: loopback (bind_to_address "127.0.0.1"), any (bind_to_address "any"), lan (the box's
LAN address only), webloopback (MPD port on any, `web { bind_to_address "127.0.0.1" }`).
"""
import json
import os
import socket
import subprocess
import sys
import time

NIMBUSD, WORK, SCENARIO = sys.argv[1], sys.argv[2], sys.argv[3]
TAG = f"{os.getpid() % 100000}"
BOX, PEER = f"nbox{TAG}", f"npeer{TAG}"
MPD_PORT, WEB_PORT, API_PORT = 16600, 16680, 14533


def ip(*args):
    subprocess.run(["ip", *args], check=True, capture_output=True)


def netns_up():
    ip("netns", "add", BOX)
    ip("netns", "add", PEER)
    ip("link", "add", f"vb{TAG}", "type", "veth", "peer", "name", f"vp{TAG}")
    ip("link", "set", f"vb{TAG}", "netns", BOX)
    ip("link", "set", f"vp{TAG}", "netns", PEER)
    for ns, dev, v4, v6 in ((BOX, f"vb{TAG}", "10.213.0.1/24", "fd42::1/64"), (PEER, f"vp{TAG}", "10.213.0.2/24", "fd42::2/64")):
        ip("-n", ns, "link", "set", "lo", "up")
        ip("-n", ns, "addr", "add", v4, "dev", dev)
        ip("-n", ns, "addr", "add", v6, "dev", dev, "nodad")
        ip("-n", ns, "link", "set", dev, "up")


def netns_down():
    for ns in (BOX, PEER):
        subprocess.run(["ip", "netns", "delete", ns], capture_output=True)


CONFIGS = {
    "loopback": 'bind_to_address "127.0.0.1"\n',
    "any": 'bind_to_address "any"\n',
    "lan": 'bind_to_address "10.213.0.1"\n',
    "webloopback": 'bind_to_address "any"\n',
}


def config():
    web = f'web {{\n    port "{WEB_PORT}"\n'
    if SCENARIO == "webloopback":
        web += '    bind_to_address "127.0.0.1"\n'
    web += "}\n"
    path = os.path.join(WORK, "nimbus.conf")
    with open(path, "w") as out:
        out.write(
            f'music_directory "{WORK}/music"\nplaylist_directory "{WORK}/playlists"\n'
            f'db_file "{WORK}/database"\nstate_file "{WORK}/state"\nsticker_file "{WORK}/sticker.sql"\n'
            f'cache_directory "{WORK}/cache"\nlog_file "{WORK}/log"\nport "{MPD_PORT}"\nzeroconf_enabled "no"\n'
            + CONFIGS[SCENARIO] + web
            + f'subsonic {{\n    port "{API_PORT}"\n}}\n'
            + 'subsonic_user {\n    name "anna"\n    password "sesame"\n}\n'
            + 'audio_output {\n    type "null"\n    name "null"\n}\n'
        )
    for folder in ("music", "playlists"):
        os.makedirs(os.path.join(WORK, folder), exist_ok=True)
    return path


# What each probe sends once connected; the first line of the answer is what it reports.
REQUESTS = {
    "mpd": None,
    "http": "GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n",
    "websocket": (
        "GET / HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Protocol: mpd\r\nOrigin: http://{host}\r\n\r\n"
    ),
    "rest": "GET /rest/ping.view?u=anna&p=sesame&v=1.16.1&c=probe&f=json HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n",
}

PROBE = r"""
import json, socket, sys
family, address, port, request = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sock = socket.socket(socket.AF_INET6 if family == "6" else socket.AF_INET, socket.SOCK_STREAM)
sock.settimeout(3)
try:
    sock.connect((address, port))
    if request:
        sock.sendall(request.encode())
    data = b""
    while b"\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    print(json.dumps(data.split(b"\r\n")[0].split(b"\n")[0].decode(errors="replace") or "closed"))
except ConnectionRefusedError:
    print(json.dumps("refused"))
except OSError as error:
    print(json.dumps("timeout" if isinstance(error, socket.timeout) else type(error).__name__))
"""


def probe(ns, family, address, port, kind):
    host = f"[{address}]:{port}" if family == "6" else f"{address}:{port}"
    request = REQUESTS[kind].format(host=host) if REQUESTS[kind] else ""
    out = subprocess.run(
        ["ip", "netns", "exec", ns, sys.executable, "-c", PROBE, family, address, str(port), request],
        capture_output=True, text=True, timeout=30,
    )
    return json.loads(out.stdout) if out.stdout.strip() else "error: " + out.stderr.strip()


def main():
    netns_up()
    daemon = None
    try:
        daemon = subprocess.Popen(
            ["ip", "netns", "exec", BOX, NIMBUSD, "--no-daemon", config()],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(WORK, "stderr"), "w"),
        )
        log = os.path.join(WORK, "log")
        deadline = time.time() + 60
        while time.time() < deadline and daemon.poll() is None:
            if os.path.exists(log) and "ready on" in open(log).read():
                break
            time.sleep(0.05)
        result = {"log": open(log).read() if os.path.exists(log) else "", "running": daemon.poll() is None}
        probes = {}
        for where, ns, family, address in (
            ("lan4", PEER, "4", "10.213.0.1"), ("lan6", PEER, "6", "fd42::1"), ("self4", BOX, "4", "127.0.0.1"),
        ):
            for kind, port in (("mpd", MPD_PORT), ("http", WEB_PORT), ("websocket", WEB_PORT), ("rest", WEB_PORT), ("api", API_PORT)):
                probes[f"{where} {kind}"] = probe(ns, family, address, port, "rest" if kind == "api" else kind)
        result["probes"] = probes
        listening = subprocess.run(["ip", "netns", "exec", BOX, "ss", "-ltnH"], capture_output=True, text=True).stdout
        result["listening"] = sorted(line.split()[3] for line in listening.splitlines() if line.strip())
        return result
    finally:
        if daemon is not None and daemon.poll() is None:
            daemon.terminate()
            try:
                daemon.wait(10)
            except subprocess.TimeoutExpired:
                daemon.kill()
        netns_down()


print(json.dumps(main()))
