"""An internet radio station for tests: GET answers 200 with audio/mpeg and no length, and
sends the given MP3 over and over (Range is ignored, as by Icecast).

Usage: live_stream.py STATEFILE MP3
Writes {"port": N, "requests": N} to STATEFILE (again after each request).
"""
import http.server
import json
import os
import sys
import threading
import time

STATE, MP3 = sys.argv[1], open(sys.argv[2], "rb").read()
LOCK = threading.Lock()
REQUESTS = [0]


def write_state(port):
    with LOCK:
        state = {"port": port, "requests": REQUESTS[0]}
    with open(STATE + ".tmp", "w") as handle:
        json.dump(state, handle)
    os.replace(STATE + ".tmp", STATE)


class Station(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with LOCK:
            REQUESTS[0] += 1
        write_state(self.server.server_address[1])
        self.send_response(200)
        self.send_header("Content-Type", "audio/mpeg")
        self.end_headers()
        try:
            while True:
                for offset in range(0, len(MP3), 4096):
                    self.wfile.write(MP3[offset:offset + 4096])
                    time.sleep(0.05)
        except OSError:
            pass

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Station)
write_state(server.server_address[1])
server.serve_forever()
