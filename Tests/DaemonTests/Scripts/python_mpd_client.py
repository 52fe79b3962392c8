"""Drives nimbusd with python-mpd2 (Debian's python3-mpd) the way scripts and GUIs do.

Usage: python_mpd_client.py PORT. Exits non-zero with a message on the first mismatch.
"""
import sys
import threading

import mpd

port = int(sys.argv[1])


def expect(actual, expected, what):
    if actual != expected:
        sys.exit(f"{what}: expected {expected!r}, got {actual!r}")


client = mpd.MPDClient()
client.timeout = 10
client.connect("127.0.0.1", port)
expect(client.mpd_version, "0.24.0", "protocol version")
client.ping()

expect(client.status()["state"], "stop", "status as read-only client")
try:
    client.sendmessage("chat", "x")
    sys.exit("sendmessage without control permission succeeded")
except mpd.CommandError as error:
    expect(str(error), "[4@0] {sendmessage} you don't have permission for \"sendmessage\"", "permission error")

try:
    client.password("wrong")
    sys.exit("wrong password accepted")
except mpd.CommandError as error:
    expect(str(error), "[3@0] {password} incorrect password", "password error")
client.password("pw")
expect("kill" in client.commands(), True, "admin sees kill")
expect(client.notcommands(), [], "notcommands for admin")

tags = client.tagtypes()
expect(len(tags), 34, "tag type count")
client.tagtypes("clear")
client.tagtypes("enable", "Artist", "Title")
expect(client.tagtypes(), ["Artist", "Title"], "tag mask")
client.tagtypes("all")

client.command_list_ok_begin()
client.ping()
client.status()
client.stats()
results = client.command_list_end()
expect(len(results), 3, "command list results")
expect(results[1]["playlistlength"], "0", "status in command list")
expect(int(results[2]["songs"]), 0, "stats in command list")

# Messaging with idle on a second connection, as Cantata and myMPD keep one.
listener = mpd.MPDClient()
listener.connect("127.0.0.1", port)
listener.password("pw")
listener.subscribe("cantata-dynamic")
expect(client.channels(), ["cantata-dynamic"], "channels")
events = []
idler = threading.Thread(target=lambda: events.append(listener.idle("message")))
idler.start()
while True:  # the message must arrive after the idle is registered
    client.sendmessage("cantata-dynamic", "load playlist")
    idler.join(0.05)
    if not idler.is_alive():
        break
expect(events[0], ["message"], "idle message")
messages = listener.readmessages()
expect(messages[0], {"channel": "cantata-dynamic", "message": "load playlist"}, "readmessages")

expect(set(client.urlhandlers()) <= {"http://", "https://"}, True, "urlhandlers")
client.close()
listener.close()
print("all checks passed")
