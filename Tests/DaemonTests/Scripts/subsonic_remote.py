"""The phone as a remote and a companion of the box, as DSub, Ultrasonic and Symfonium use
the API — through py-opensonic — while python-mpd clients watch and act on the MPD port:
the jukebox is the box's queue (each change seen by an idling MPD client, and the other way
round), bookmarks are the resume positions MPD clients keep, play queues survive a restart,
podcasts are the box's subscriptions, lyrics come from tags and .lrc files, radio stations
are a stored playlist.

Usage: subsonic_remote.py WEB_PORT MPD_PORT FEED_URL EPISODE_FILE first|restarted
"""

import hashlib
import json
import queue
import sys
import threading
import time
import urllib.parse
import urllib.request

import xml.etree.ElementTree as ET

import libopensonic
from mpd import MPDClient

from subsonic_spec import check, checked_with, fail

# Nimbus's own commands, as a client library learns them.
MPDClient.add_command("listpodcasts", MPDClient._parse_songs)
MPDClient.add_command("listpins", MPDClient._parse_songs)

WEB, MPD_PORT, FEED, EPISODE, PHASE = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]


def wait_for(condition, message, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    fail(message)


def song_id(uri):
    return "s" + hashlib.md5(("song\0" + uri).encode()).hexdigest()[:16]


def status(episode):
    """py-opensonic gives the status as an enum."""
    return getattr(episode.status, "value", episode.status)


def mpd():
    client = MPDClient()
    client.connect("127.0.0.1", MPD_PORT)
    return client


def raw(endpoint, user="anna", password="sesame", fmt="json", **params):
    query = urllib.parse.urlencode({"u": user, "p": password, "c": "remote", "f": fmt, **params}, doseq=True)
    with urllib.request.urlopen(f"http://127.0.0.1:{WEB}/rest/{endpoint}?{query}") as answer:
        body = answer.read()
    return json.loads(body)["subsonic-response"] if fmt == "json" else ET.fromstring(body)


def spec(endpoint, **params):
    """The answer in JSON and XML, with the fields OpenSubsonic requires of each object."""
    return checked_with(raw, endpoint, **params)


class Watcher:
    """An MPD client idling on player, playlist, mixer and sticker, as ncmpcpp does."""

    def __init__(self):
        self.events = queue.Queue()
        self.client = mpd()
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        while True:
            for event in self.client.idle("player", "playlist", "mixer", "sticker", "stored_playlist", "offline"):
                self.events.put(event)

    def expect(self, event, what):
        deadline = time.time() + 15
        while time.time() < deadline:
            try:
                if self.events.get(timeout=0.2) == event:
                    return
            except queue.Empty:
                pass
        fail(f"no '{event}' event after {what}")

    def drain(self):
        while not self.events.empty():
            self.events.get()


def jukebox(phone, box, watcher, songs):
    watcher.drain()
    # py-opensonic 10.4.1 sends `set` without its ids; DSub sends them, as here.
    check(raw("jukeboxControl", action="set", id=songs[:3])["status"] == "ok", "jukebox set")
    watcher.expect("playlist", "jukebox set")
    check([e["file"] for e in box.playlistinfo()] == [s[1] for s in SONGS[:3]], f"set: the box's queue is {box.playlistinfo()}")
    phone.jukebox_control("skip", index=1, offset=1)
    watcher.expect("player", "jukebox skip")
    state = box.status()
    check(state["state"] == "play" and state["song"] == "1", f"skip: the box is {state}")
    status = phone.jukebox_control("status")
    check(status.current_index == 1 and status.playing, f"status after skip: {status}")
    phone.jukebox_control("stop")
    watcher.expect("player", "jukebox stop")
    check(box.status()["state"] == "pause", "stop pauses the box")
    phone.jukebox_control("setGain", gain=0.5)
    watcher.expect("mixer", "jukebox setGain")
    check(box.status()["volume"] == "50", f"gain 0.5 is volume {box.status().get('volume')}")
    phone.jukebox_control("add", sids=[songs[3]])
    watcher.expect("playlist", "jukebox add")
    phone.jukebox_control("remove", index=0)
    watcher.expect("playlist", "jukebox remove")
    check(len(box.playlistinfo()) == 3, "remove")
    phone.jukebox_control("shuffle")
    watcher.expect("playlist", "jukebox shuffle")
    phone.jukebox_control("start")
    watcher.expect("player", "jukebox start")
    # The other way round: what MPD clients do is what the phone sees.
    box.clear()
    box.add(SONGS[0][1])
    box.add(SONGS[1][1])
    box.play(1)
    listing = wait_for(lambda: (lambda p: p if p.current_index == 1 and p.playing else None)(phone.jukebox_control("get")),
                       "the jukebox does not see the box's queue")
    check([e.id for e in listing.entry] == songs[:2], f"jukebox get: {[e.id for e in listing.entry]}")
    check(len(spec("jukeboxControl", action="get")["jukeboxPlaylist"]["entry"]) == 2, "jukebox get in JSON")
    check(spec("jukeboxControl", action="status")["jukeboxStatus"]["currentIndex"] == 1, "jukebox status in JSON")
    box.setvol(80)
    check(abs(phone.jukebox_control("status").gain - 0.8) < 0.01, "gain follows the volume")
    box.stop()
    refused = raw("jukeboxControl", user="ben", password="pw", action="start")
    check(refused.get("error", {}).get("code") == 50, f"a user without player permission: {refused}")
    refused = raw("jukeboxControl", action="skip", index=99)
    check(refused.get("error", {}).get("code") == 10, f"a bad index: {refused}")
    print("jukebox ok", flush=True)


def bookmarks(phone, box, watcher, songs):
    box.sticker_set("song", SONGS[0][1], "elapsed", "42")
    marks = {b.entry.id: b for b in phone.get_bookmarks()}
    check(songs[0] in marks and marks[songs[0]].position == 42000, f"a position kept on the box is a bookmark: {marks}")
    watcher.drain()
    check(phone.create_bookmark(songs[1], 61500, "chapter 3"), "createBookmark")
    watcher.expect("sticker", "createBookmark")
    check(box.sticker_get("song", SONGS[1][1], "elapsed") == "61", "a bookmark is where the box resumes")
    marks = {b.entry.id: b for b in phone.get_bookmarks()}
    check(marks[songs[1]].comment == "chapter 3" and marks[songs[1]].username == "anna", f"bookmark: {marks[songs[1]]}")
    check(len(spec("getBookmarks")["bookmarks"]["bookmark"]) == len(marks), "bookmarks in JSON")
    check(phone.delete_bookmark(songs[1]), "deleteBookmark")
    check(songs[1] not in {b.entry.id for b in phone.get_bookmarks()}, "deleted")
    check("elapsed" not in box.sticker_list("song", SONGS[1][1]), "the position went with the bookmark")
    print("bookmarks ok", flush=True)


def play_queues(phone, songs):
    if PHASE == "first":
        check(phone.save_play_queue(songs[:3], current=songs[2], position=12345), "savePlayQueue")
    saved = phone.get_play_queue()
    check([e.id for e in saved.entry] == songs[:3] and saved.current == songs[2] and saved.position == 12345,
          f"play queue ({PHASE}): {saved}")
    by_index = phone.get_play_queue_by_index()
    check(by_index.current_index == 2 and by_index.position == 12345, f"by index: {by_index}")
    check(spec("getPlayQueue")["playQueue"]["changedBy"] == "DSub", "the client that saved the queue")
    spec("getPlayQueueByIndex")
    other = raw("getPlayQueue", user="ben", password="pw")
    check("playQueue" not in other, "each user has a queue of their own")
    print("play queues ok", flush=True)


def podcasts(phone, box, watcher):
    check(phone.create_podcast_channel(FEED), "createPodcastChannel")
    check(any(p.get("podcast") == "Talk" for p in box.listpodcasts()), f"the box has the subscription: {box.listpodcasts()}")
    channels = phone.get_podcasts()
    check(len(channels) == 1 and channels[0].title == "Talk" and channels[0].episode, f"channels: {channels}")
    episode = channels[0].episode[0]
    check(episode.title == "First" and status(episode) == "new", f"episode: {episode}")
    check(phone.get_podcast_episode(episode.id).title == "First", "getPodcastEpisode")
    check(phone.get_newest_podcasts(count=5)[0].id == episode.id, "getNewestPodcasts")
    spec("getPodcasts")
    spec("getNewestPodcasts", count=5)
    spec("getPodcastEpisode", id=episode.id)
    wait_for(lambda: raw("getSong", id=episode.stream_id).get("status") == "ok", "the episode never became a song")
    with urllib.request.urlopen(f"http://127.0.0.1:{WEB}/rest/stream?u=anna&p=sesame&id={episode.stream_id}") as answer:
        check(answer.read() == open(EPISODE, "rb").read(), "the episode streams as its file")
    watcher.drain()
    check(phone.download_podcast_episode(episode.id), "downloadPodcastEpisode")
    watcher.expect("offline", "downloadPodcastEpisode")
    wait_for(lambda: status(phone.get_podcast_episode(episode.id)) == "completed", "the episode never completed")
    check(any(pin.get("pin", "").startswith("podcasts/Talk/") for pin in box.listpins()), f"pinned on the box: {box.listpins()}")
    check(phone.delete_podcast_episode(episode.id), "deletePodcastEpisode")
    wait_for(lambda: status(phone.get_podcast_episode(episode.id)) == "new", "the episode stayed pinned")
    check(phone.delete_podcast_channel(channels[0].id), "deletePodcastChannel")
    check(box.listpodcasts() == [], "unsubscribed on the box")
    print("podcasts ok", flush=True)


def lyrics(phone):
    tagged = phone.get_lyrics_by_song_id(song_id("Sung/tagged.flac"))
    check(len(tagged) == 1 and not tagged[0].synced and [l.value for l in tagged[0].line] == ["Plain words", "on two lines"],
          f"from a FLAC tag: {tagged}")
    timed = phone.get_lyrics_by_song_id(song_id("Sung/timed.mp3"))
    synced = [t for t in timed if t.synced]
    plain = [t for t in timed if not t.synced]
    check(synced and [(l.start, l.value) for l in synced[0].line] == [(1000, "Up"), (2500, "Down")], f"from SYLT: {timed}")
    check(plain and plain[0].line[0].value == "Unsynced words", f"from USLT: {timed}")
    filed = phone.get_lyrics_by_song_id(song_id("Sung/filed.ogg"))
    check(filed and filed[0].synced and [(l.start, l.value) for l in filed[0].line] == [(500, "Hello"), (1250, "Again"), (3000, "Hello")],
          f"from an .lrc file: {filed}")
    check(phone.get_lyrics_by_song_id(song_id(SONGS[0][1])) == [], "a song without lyrics has none")
    for name in ("Sung/tagged.flac", "Sung/timed.mp3", "Sung/filed.ogg"):
        spec("getLyricsBySongId", id=song_id(name))
    spec("getLyrics", artist="Singer", title="Tagged")
    found = phone.get_lyrics(artist="Singer", title="Tagged")
    check(found.value == "Plain words\non two lines", f"getLyrics: {found}")
    print("lyrics ok", flush=True)


def radio(phone, box, watcher):
    watcher.drain()
    check(phone.create_internet_radio_station("http://radio.example/stream", "Example FM", "http://radio.example/"), "create station")
    watcher.expect("stored_playlist", "createInternetRadioStation")
    check("http://radio.example/stream" in box.listplaylist("radio"), "the station is in the radio playlist")
    stations = phone.get_internet_radio_stations()
    check([(s.name, s.stream_url, s.home_page_url) for s in stations] == [("Example FM", "http://radio.example/stream", "http://radio.example/")],
          f"stations: {stations}")
    spec("getInternetRadioStations")
    check(phone.update_internet_radio_station(stations[0].id, "http://radio.example/hq", "Example FM HQ"), "update station")
    check(box.listplaylist("radio") == ["http://radio.example/hq"], "the playlist follows")
    check(phone.get_internet_radio_stations()[0].name == "Example FM HQ", "renamed")
    refused = raw("createInternetRadioStation", user="ben", password="pw", streamUrl="http://x/", name="x")
    check(refused.get("error", {}).get("code") == 50, "only admins add stations")
    check(phone.delete_internet_radio_station(phone.get_internet_radio_stations()[0].id), "delete station")
    check(box.listplaylist("radio") == [], "deleted from the playlist")
    print("radio ok", flush=True)


SONGS = []


def main():
    box = mpd()
    files = sorted(e["file"] for e in box.listallinfo() if "file" in e and e["file"].startswith("Alpha Band/"))
    SONGS.extend((song_id(f), f) for f in files)
    songs = [s[0] for s in SONGS]
    check(len(songs) >= 4, f"fixture songs: {files}")
    phone = libopensonic.Connection("http://127.0.0.1", "anna", "sesame", port=int(WEB), app_name="DSub")
    names = [e["name"] for e in raw("getOpenSubsonicExtensions")["openSubsonicExtensions"]]
    check(sorted(names) == sorted(["formPost", "apiKeyAuthentication", "transcodeOffset", "songLyrics", "indexBasedQueue",
                                   "getPodcastEpisode"]), f"extensions: {names}")
    if PHASE == "first":
        watcher = Watcher()
        jukebox(phone, box, watcher, songs)
        bookmarks(phone, box, watcher, songs)
        play_queues(phone, songs)
        podcasts(phone, box, watcher)
        lyrics(phone)
        radio(phone, box, watcher)
    else:
        play_queues(phone, songs)
    print("ALL OK", flush=True)


main()
