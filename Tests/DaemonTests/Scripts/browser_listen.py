#!/usr/bin/env python3
"""Plays an httpd stream in headless Chromium's <audio> element, as a listener's browser does.

Usage: browser_listen.py URL SECONDS
Prints one JSON object: the element's currentTime sampled every half second, the media
error code (null when none), whether it ended, and which events fired.
"""
import http.server
import json
import sys
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

url, seconds = sys.argv[1], float(sys.argv[2])


class Page(http.server.BaseHTTPRequestHandler):
    """An ordinary page on its own origin: an opaque one (about:blank, data:) may not load media."""

    def do_GET(self):
        body = b"<!doctype html><title>listener</title><body></body>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
threading.Thread(target=server.serve_forever, daemon=True).start()
options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--autoplay-policy=no-user-gesture-required", "--disable-audio-output",
                 "--user-data-dir=" + sys.argv[3] if len(sys.argv) > 3 else "--incognito"):
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    driver.get("http://127.0.0.1:%d/" % server.server_address[1])
    driver.execute_script("""
        window.seen = [];
        const audio = document.createElement('audio');
        for (const name of ['playing', 'waiting', 'stalled', 'error', 'ended', 'emptied', 'abort'])
            audio.addEventListener(name, () => window.seen.push(name));
        audio.src = arguments[0];
        document.body.appendChild(audio);
        window.player = audio;
        audio.play().catch(e => window.seen.push('play-rejected: ' + e.name));
    """, url)
    times = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.5)
        times.append(driver.execute_script("return window.player.currentTime"))
    state = driver.execute_script(
        "return {error: window.player.error ? window.player.error.code : null,"
        " ended: window.player.ended, events: window.seen}")
    state["times"] = times
    print(json.dumps(state))
finally:
    driver.quit()
