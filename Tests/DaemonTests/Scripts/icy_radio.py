"""A radio station for tests: an endless MP3 stream (one file, looped) with ICY metadata.

Usage: icy_radio.py MP3 STATEFILE. Writes {"port": N} to STATEFILE once listening. Every
connection that asks with Icy-MetaData: 1 gets icy-metaint 8192 and StreamTitle blocks: the
first is titled "First Title" and dropped after 64 KiB of audio; every later one is titled
"Second Title" and runs until the client leaves. "connections" in STATEFILE counts those
(a request without Icy-MetaData, such as a probe, gets the stream without metadata).
"""
import json
import socketserver
import sys
import threading

MP3, STATE = sys.argv[1], sys.argv[2]
AUDIO = open(MP3, "rb").read()
INTERVAL = 8192
LOCK = threading.Lock()
COUNT = {"connections": 0}


def metadata(title):
    text = f"StreamTitle='{title}';".encode()
    units = (len(text) + 15) // 16
    return bytes([units]) + text + b"\0" * (units * 16 - len(text))


class Station(socketserver.StreamRequestHandler):
    def handle(self):
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = self.request.recv(4096)
            if not chunk:
                return
            request += chunk
        icy = b"icy-metadata: 1" in request.lower()
        number = 0
        if icy:
            with LOCK:
                COUNT["connections"] += 1
                number = COUNT["connections"]
                self.save(number)
        title = "First Title" if number == 1 else "Second Title"
        head = "HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\nicy-name: Test Radio\r\n"
        if icy:
            head += f"icy-metaint: {INTERVAL}\r\n"
        self.wfile.write((head + "\r\n").encode())
        sent = 0
        position = 0
        try:
            while True:
                block = AUDIO[position:position + INTERVAL]
                if len(block) < INTERVAL:
                    block += AUDIO[:INTERVAL - len(block)]
                position = (position + INTERVAL) % len(AUDIO)
                self.wfile.write(block)
                if icy:
                    self.wfile.write(metadata(title) if sent % (4 * INTERVAL) == 0 else b"\0")
                sent += INTERVAL
                if number == 1 and sent >= 8 * INTERVAL:
                    return
                # About real time for 128 kbit/s.
                threading.Event().wait(INTERVAL / 16000)
        except (BrokenPipeError, ConnectionResetError):
            return

    @staticmethod
    def save(connections):
        with open(STATE + ".tmp", "w") as f:
            json.dump({"port": SERVER.server_address[1], "connections": connections}, f)
        import os
        os.replace(STATE + ".tmp", STATE)


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


SERVER = Server(("127.0.0.1", 0), Station)
Station.save(0)
SERVER.serve_forever()
