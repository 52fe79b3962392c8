"""Drives playback with python-mpd2 (Debian's python3-mpd) the way GUIs and scripts do:
queue, play, pause, seek, next, volume, idle on the player.

Usage: python_mpd_playback.py PORT. The library holds one.wav, two.wav and three.wav, each
ten seconds long, and the daemon plays through a software-mixed null output.
Exits non-zero with a message on the first mismatch.
"""
import sys
import threading
import time

import mpd

port = int(sys.argv[1])


def expect(actual, expected, what):
    if actual != expected:
        sys.exit(f"{what}: expected {expected!r}, got {actual!r}")


def wait_for(predicate, what, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    sys.exit(f"timed out waiting for {what}")


client = mpd.MPDClient()
client.timeout = 10
client.connect("127.0.0.1", port)
client.clear()
for name in ("one.wav", "two.wav", "three.wav"):
    client.add(name)
song_id = client.addid("one.wav", 1)
expect(client.playlistid(song_id)[0]["pos"], "1", "addid with a position")
client.deleteid(song_id)
expect([song["file"] for song in client.playlistinfo()], ["one.wav", "two.wav", "three.wav"], "queue")

# A second connection idles on the player, as every GUI does.
watcher = mpd.MPDClient()
watcher.connect("127.0.0.1", port)
events = []
idler = threading.Thread(target=lambda: events.append(watcher.idle("player")))
idler.start()
time.sleep(0.2)
client.play(0)
idler.join(5)
expect(events, [["player"]], "idle player on play")

status = client.status()
expect(status["state"], "play", "state after play")
expect(status["song"], "0", "song after play")
expect(status["nextsong"], "1", "nextsong")
expect(client.currentsong()["file"], "one.wav", "currentsong")
wait_for(lambda: float(client.status().get("elapsed", "0")) > 0.3, "elapsed to advance")

client.pause(1)
expect(client.status()["state"], "pause", "pause 1")
paused_at = float(client.status()["elapsed"])
time.sleep(0.3)
expect(float(client.status()["elapsed"]), paused_at, "elapsed frozen while paused")
client.pause()
expect(client.status()["state"], "play", "bare pause toggles back")

client.seekcur(6)
wait_for(lambda: float(client.status()["elapsed"]) >= 6.0, "seekcur to 6 s")
client.seekcur("-2")
elapsed = float(client.status()["elapsed"])
if not 3.5 <= elapsed < 5.5:
    sys.exit(f"seekcur -2: elapsed {elapsed}")
client.seekid(client.currentsong()["id"], 1.5)
wait_for(lambda: 1.5 <= float(client.status()["elapsed"]) < 3, "seekid")

client.next()
expect(client.status()["song"], "1", "next")
client.previous()
expect(client.status()["song"], "0", "previous")

client.setvol(40)
expect(client.status()["volume"], "40", "setvol")
client.volume(-15)
expect(client.status()["volume"], "25", "volume -15")

client.stop()
expect(client.status()["state"], "stop", "stop")
watcher.disconnect()
client.disconnect()
print("all checks passed")
