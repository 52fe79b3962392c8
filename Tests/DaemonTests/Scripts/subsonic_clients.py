"""The Subsonic API as real clients use it: py-opensonic (typed models, form POST and GET),
knuckles (token sign-in, GET and POST) and raw HTTP, every JSON and XML answer checked
against the required fields of the OpenSubsonic response definitions; stars, ratings, plays
and playlists checked from the MPD side with python-mpd (and the other way round).

    subsonic_clients.py PORT USER PASSWORD MUSIC_DIR MPD_PORT IDS_FILE [sync]

Writes the ids a full sync saw to IDS_FILE (the caller compares them across a restart);
with `sync`, does only that; with `pages`, checks that list endpoints honour the counts asked
(a library of more than 1,000 songs) and that every advertised cover is a picture.
Prints one line per check; exits non-zero with the reason on the first failure."""

import hashlib
import json
import os
import random
import string
import sys
import socket
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET

import knuckles
import libopensonic
from mpd import MPDClient

from subsonic_spec import check, checked_with, fail, walk  # noqa: F401

PORT, USER, PASSWORD, MUSIC, MPD_PORT, IDS_FILE = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
BASE = f"http://127.0.0.1:{PORT}/rest/"

def auth():
    salt = "".join(random.choice(string.ascii_lowercase) for _ in range(8))
    return {"u": USER, "t": hashlib.md5((PASSWORD + salt).encode()).hexdigest(), "s": salt, "v": "1.16.1", "c": "suite"}


def http(endpoint, params=None, method="GET", headers=None):
    """Status, headers and body of one request."""
    query = urllib.parse.urlencode(list((params or {}).items()), doseq=True)
    url, data = BASE + endpoint, None
    if method == "POST":
        data = query.encode()
    else:
        url += "?" + query
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, {k.lower(): v for k, v in answer.headers.items()}, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def call(endpoint, fmt="json", method="GET", **params):
    params = {**auth(), "f": fmt, **params}
    status, headers, body = http(endpoint, params, method)
    check(status == 200, f"{endpoint}: HTTP {status}")
    if fmt == "json":
        check(headers.get("content-type", "").startswith("application/json"), f"{endpoint}: content type {headers.get('content-type')}")
        root = json.loads(body)["subsonic-response"]
        for key, value in (("version", "1.16.1"), ("type", "nimbus"), ("openSubsonic", True)):
            check(root.get(key) == value, f"{endpoint}: {key} is {root.get(key)!r}")
        check("serverVersion" in root, f"{endpoint}: no serverVersion")
        return root
    return ET.fromstring(body)


def checked(endpoint, **params):
    return checked_with(call, endpoint, **params)


def error_code(endpoint, **params):
    root = call(endpoint, **params)
    check(root["status"] == "failed", f"{endpoint} {params}: not failed")
    return root["error"]["code"]


def file_bytes(path):
    with open(os.path.join(MUSIC, path), "rb") as handle:
        return handle.read()


def full_sync(page):
    """Symfonium's sync: search3 with query="" page by page (artists, then albums, then
    songs), then getAlbum for every album."""
    seen = {}
    for kind, count in (("artist", "artistCount"), ("album", "albumCount"), ("song", "songCount")):
        items, offset = [], 0
        while True:
            params = {"query": '""', "artistCount": 0, "albumCount": 0, "songCount": 0, count: page,
                      kind + "Offset": offset}
            got = walk(checked("search3", **params), ["searchResult3", kind])
            items += got
            if len(got) < page:
                break
            offset += page
        ids = [item["id"] for item in items]
        check(len(ids) == len(set(ids)), f"sync (page {page}): a {kind} came twice")
        seen[kind] = items
    album_songs = []
    for album in seen["album"]:
        album_songs += [song["id"] for song in walk(checked("getAlbum", id=album["id"]), ["album", "song"])]
    check(sorted(album_songs) == sorted(song["id"] for song in seen["song"]),
          f"sync (page {page}): the albums' songs are not the songs searched")
    return seen


class Idle:
    """`idle SUBSYSTEM` sent at once on a connection of its own; `wait` reads what it reports."""

    def __init__(self, subsystem):
        self.socket = socket.create_connection(("127.0.0.1", MPD_PORT), timeout=10)
        self.lines = self.socket.makefile("rb")
        check(self.lines.readline().startswith(b"OK MPD"), "no MPD greeting")
        self.socket.sendall(f"idle {subsystem}\n".encode())
        # Answered after the idle was read: a later change cannot slip in before it.
        probe = MPDClient()
        probe.connect("127.0.0.1", MPD_PORT)
        probe.ping()
        probe.disconnect()

    def wait(self):
        events = []
        for line in self.lines:
            text = line.decode().strip()
            if text == "OK":
                break
            check(text.startswith("changed: "), f"idle answered {text}")
            events.append(text[len("changed: "):])
        self.socket.close()
        return events


def pages():
    """Counts as clients ask them: a client paging by 1,000 sees the whole library, and every
    `coverArt` id handed out answers a picture, whether or not the album has art."""
    mpd = MPDClient()
    mpd.connect("127.0.0.1", MPD_PORT)
    total = int(mpd.stats()["songs"])
    check(total > 1000, f"the library has {total} songs")
    client = knuckles.Subsonic(f"127.0.0.1:{PORT}", USER, PASSWORD, "knuckles", use_https=False)
    first = client.searching.search('""', song_count=1000, album_count=0, artist_count=0)
    check(len(first.songs) == 1000, f"search3 songCount=1000 answered {len(first.songs)}")
    rest = client.searching.search('""', song_count=1000, song_offset=1000, album_count=0, artist_count=0)
    check(len(rest.songs) == total - 1000, f"the second page of 1,000 held {len(rest.songs)} of {total - 1000}")
    check(len({s.id for s in first.songs} | {s.id for s in rest.songs}) == total, "two pages of 1,000 are not the library")
    albums = walk(checked("getAlbumList2", type="alphabeticalByName", size=1000), ["albumList2", "album"])
    check(len(albums) == min(1000, len(walk(checked("search3", query='""', albumCount=10000, songCount=0, artistCount=0),
                                             ["searchResult3", "album"]))), f"getAlbumList2 size=1000 gave {len(albums)}")
    genre = first.songs[0].genre
    by_genre = walk(checked("getSongsByGenre", genre=genre, count=1000), ["songsByGenre", "song"])
    in_genre = sum(1 for e in mpd.find("genre", genre) if "file" in e)
    check(len(by_genre) == min(1000, in_genre), f"getSongsByGenre count=1000 gave {len(by_genre)} of {in_genre}")
    check(len(walk(checked("getRandomSongs", size=1000), ["randomSongs", "song"])) == 500, "getRandomSongs is not capped at 500")
    print(f"pages ok: {total} songs, {len(albums)} albums", flush=True)

    everything = checked("search3", query='""', albumCount=10000, songCount=10000, artistCount=10000)
    advertised = {item["coverArt"] for kind in ("artist", "album", "song")
                  for item in walk(everything, ["searchResult3", kind]) if "coverArt" in item}
    for art in sorted(advertised):
        status, headers, body = http("getCoverArt", {**auth(), "id": art, "size": 64})
        check(status == 200 and headers.get("content-type") == "image/jpeg" and body[:2] == b"\xff\xd8" and body[-2:] == b"\xff\xd9",
              f"getCoverArt {art}: {status} {headers.get('content-type')} {body[:60]!r}")
    check(error_code("getCoverArt", id="a" + "0" * 16) == 70, "an id never handed out is not 70")
    print(f"covers ok: {len(advertised)} advertised, every one a picture", flush=True)
    print("ALL OK", flush=True)


def main():
    if len(sys.argv) > 7 and sys.argv[7] == "pages":
        return pages()
    mpd = MPDClient()
    mpd.connect("127.0.0.1", MPD_PORT)
    expected = sorted(entry["file"] for entry in mpd.listallinfo() if "file" in entry)

    # Sign-in: every way, and every refusal with its code.
    check(checked("ping")["status"] == "ok", "ping")
    for params in ({"p": PASSWORD}, {"p": "enc:" + PASSWORD.encode().hex()}):
        status, _, body = http("ping.view", {"u": USER, "v": "1.2.0", "c": "old", "f": "json", **params})
        check(json.loads(body)["subsonic-response"]["status"] == "ok", f"sign-in with {list(params)} refused")
    status, _, body = http("ping", {"u": USER, "p": "wrong", "f": "json"})
    check(json.loads(body)["subsonic-response"]["error"]["code"] == 40, "a wrong password is not 40")
    status, _, body = http("ping", {"u": USER, "p": PASSWORD, "t": "x", "s": "y", "f": "json"})
    check(json.loads(body)["subsonic-response"]["error"]["code"] == 43, "two ways at once is not 43")
    status, _, body = http("ping", {"apiKey": "nope", "f": "json"})
    check(json.loads(body)["subsonic-response"]["error"]["code"] == 44, "a wrong API key is not 44")
    status, _, body = http("getOpenSubsonicExtensions", {"f": "json"})
    names = [e["name"] for e in json.loads(body)["subsonic-response"]["openSubsonicExtensions"]]
    check("formPost" in names and "apiKeyAuthentication" in names, f"extensions without sign-in: {names}")
    status, headers, body = http("ping", {**auth(), "f": "jsonp", "callback": "cb"})
    check(body.startswith(b"cb(") and "javascript" in headers.get("content-type", ""), f"JSONP: {body[:40]}")
    print("sign-in ok", flush=True)

    # The whole library, Symfonium's way, at 500 a page and at 3 (several pages).
    seen = full_sync(500)
    if len(sys.argv) > 7 and sys.argv[7] == "sync":
        with open(IDS_FILE, "w") as out:
            json.dump({kind: sorted(i["id"] for i in seen[kind]) for kind in seen}, out)
        print("ALL OK", flush=True)
        return
    paged = full_sync(3)
    for kind in ("artist", "album", "song"):
        check([i["id"] for i in seen[kind]] == [i["id"] for i in paged[kind]], f"{kind}s differ between page sizes")
    paths = sorted(song["path"] for song in seen["song"])
    check(paths == expected, f"the sync's songs {paths} are not MPD's {expected}")
    with open(IDS_FILE, "w") as out:
        json.dump({kind: sorted(i["id"] for i in seen[kind]) for kind in seen}, out)
    print(f"sync ok: {len(seen['artist'])} artists, {len(seen['album'])} albums, {len(seen['song'])} songs", flush=True)

    # Every browsing and list endpoint, checked in both formats.
    folders = walk(checked("getMusicFolders"), ["musicFolders", "musicFolder"])
    check(folders and folders[0]["id"] == 0, f"music folders: {folders}")
    for artist in walk(checked("getArtists"), ["artists", "index", "artist"]):
        checked("getArtist", id=artist["id"])
    song = seen["song"][0]
    checked("getSong", id=song["id"])
    genres = walk(checked("getGenres"), ["genres", "genre"])
    check(any(g["value"] == "Rock" for g in genres), f"genres: {genres}")
    for kind in ("random", "newest", "highest", "frequent", "recent", "alphabeticalByName", "alphabeticalByArtist", "starred"):
        checked("getAlbumList2", type=kind, size=500)
        checked("getAlbumList", type=kind, size=500)
    checked("getAlbumList2", type="byYear", fromYear=2000, toYear=2010)
    checked("getAlbumList2", type="byGenre", genre="Rock")
    checked("getRandomSongs", size=5)
    checked("getSongsByGenre", genre="Rock")
    checked("getTopSongs", artist="Alpha Band")
    for endpoint in ("getArtistInfo2", "getArtistInfo", "getSimilarSongs2"):
        checked(endpoint, id=seen["artist"][0]["id"])
    checked("getAlbumInfo2", id=seen["album"][0]["id"])
    checked("getScanStatus")
    checked("getUser", username=USER)
    checked("getNowPlaying")
    top = walk(checked("getIndexes"), ["indexes", "index", "artist"])
    directories = [checked("getMusicDirectory", id=entry["id"]) for entry in top]
    check(any(walk(d, ["directory", "child"]) for d in directories), "folder browsing shows nothing")
    check(call("getIndexes", ifModifiedSince=checked("getIndexes")["indexes"]["lastModified"])["indexes"].get("index") in (None, []),
          "getIndexes answers again although nothing changed")
    for bad in ({"id": "../../etc/passwd"}, {"id": "s" + "0" * 16}, {"id": "x" * 5000}):
        check(error_code("getSong", **bad) == 70, f"getSong {bad['id'][:20]} is not 70")
    check(error_code("getSong") == 10, "getSong without id is not 10")
    check(error_code("getAlbumList2") == 10, "getAlbumList2 without type is not 10")
    check(len(walk(checked("search3", query='""', songCount=10**12), ["searchResult3", "song"])) == len(expected), "huge count not clamped")
    print("browsing ok", flush=True)

    # Stream and download: the file's bytes, ranges, and a range past the end.
    for item in seen["song"]:
        original = file_bytes(item["path"])
        for endpoint in ("stream", "download"):
            status, headers, body = http(endpoint, {**auth(), "id": item["id"]})
            check(status == 200 and body == original, f"{endpoint} {item['path']}: {status}, {len(body)} of {len(original)} bytes")
            check(headers.get("accept-ranges") == "bytes" and headers.get("content-length") == str(len(original)), f"{endpoint} headers {headers}")
            check(headers.get("content-type") == item["contentType"], f"{endpoint}: {headers.get('content-type')} vs {item['contentType']}")
        status, headers, body = http("stream", {**auth(), "id": item["id"]}, headers={"Range": "bytes=10-19"})
        check(status == 206 and body == original[10:20], f"range 10-19 of {item['path']}: {status} {len(body)}")
        check(headers.get("content-range") == f"bytes 10-19/{len(original)}", f"content-range {headers.get('content-range')}")
        status, headers, body = http("stream", {**auth(), "id": item["id"]}, headers={"Range": f"bytes={len(original)}-"})
        check(status == 416 and headers.get("content-range") == f"bytes */{len(original)}", f"range past the end: {status}")
        status, _, body = http("stream", {**auth(), "id": item["id"]}, method="HEAD")
        check(status == 200 and body == b"", "HEAD of stream")
    covered = next(a for a in seen["album"] if a["name"] == "First Light")
    status, headers, body = http("getCoverArt", {**auth(), "id": covered["id"], "size": 64})
    check(status == 200 and headers.get("content-type") == "image/jpeg" and body[:2] == b"\xff\xd8", f"cover: {status} {headers}")
    status, _, _ = http("getCoverArt", {**auth(), "id": covered["id"], "size": 64}, headers={"If-None-Match": headers.get("etag", "")})
    check(status == 304, f"cover with its ETag: {status}")
    print("streaming ok", flush=True)

    # py-opensonic (form POST, then GET) and knuckles (GET, then POST), as apps use them.
    for use_get in (False, True):
        client = libopensonic.Connection("http://127.0.0.1", USER, PASSWORD, port=int(PORT), use_get=use_get, app_name="suite")
        check(client.ping(), "py-opensonic ping")
        artists = client.get_artists()
        check(len(artists.index) > 0, "py-opensonic getArtists")
        result = client.search3('""', artist_count=500, album_count=500, song_count=500)
        check(len(result.song) == len(expected), f"py-opensonic search3 found {len(result.song)}")
        album = client.get_album(result.album[0].id)
        check(album.song_count == len(album.song), "py-opensonic getAlbum")
        client.get_album_list2("newest", size=500)
        # (Not get_music_folders: py-opensonic 10.4.1 iterates `musicFolders` itself, where the
        # spec — and every server — puts the list in `musicFolders.musicFolder`.)
        client.get_genres()
        client.get_starred2()
        client.get_playlists()
        client.get_indexes()
        client.cleanup()
    for method in (knuckles.RequestMethod.GET, knuckles.RequestMethod.POST):
        client = knuckles.Subsonic(f"127.0.0.1:{PORT}", USER, PASSWORD, "knuckles", use_https=False, request_method=method)
        check(client.system.ping().status == "ok", "knuckles ping")
        found = client.searching.search('""', song_count=500, album_count=500, artist_count=500)
        check(len(found.songs) == len(expected), f"knuckles search found {len(found.songs)}")
        client.browsing.get_album(found.albums[0].id)
        client.browsing.get_genres()
        client.browsing.get_artists()
    print("client libraries ok", flush=True)

    # Stars, ratings and plays are MPD stickers, both ways, raising `sticker` on the MPD port.
    one, other = seen["song"][0], seen["song"][1]
    before = int(mpd.sticker_list("song", one["path"]).get("playCount", "0"))
    watcher = Idle("sticker")
    client = libopensonic.Connection("http://127.0.0.1", USER, PASSWORD, port=int(PORT), app_name="suite")
    check(client.star(sids=[one["id"]]), "star")
    check(watcher.wait() == ["sticker"], "star did not raise sticker")
    check(client.set_rating(one["id"], 4), "setRating")
    check(client.scrobble(one["id"], submission=True), "scrobble")
    check(client.scrobble(one["id"], submission=True), "scrobble")
    check(mpd.sticker_get("song", one["path"], "like") == "2", "like sticker")
    check(mpd.sticker_get("song", one["path"], "rating") == "8", "rating sticker")
    check(mpd.sticker_get("song", one["path"], "playCount") == str(before + 2), "playCount sticker")
    check(int(mpd.sticker_get("song", one["path"], "lastPlayed")) > 1_700_000_000, "lastPlayed sticker")
    check(client.scrobble(other["id"], submission=False), "now playing")
    check("playCount" not in mpd.sticker_list("song", other["path"]), "a now-playing note counted a play")
    mpd.sticker_set("song", other["path"], "like", "2")
    mpd.sticker_set("song", other["path"], "rating", "6")
    starred = walk(checked("getStarred2"), ["starred2", "song"])
    check(sorted(s["id"] for s in starred) == sorted([one["id"], other["id"]]), f"starred: {[s['id'] for s in starred]}")
    check({s["id"]: s.get("userRating") for s in starred} == {one["id"]: 4, other["id"]: 3}, f"ratings: {starred}")
    check(all("starred" in s for s in starred), "a starred song without its date")
    played = walk(checked("getSong", id=one["id"]), ["song"])[0]
    check(played.get("playCount") == before + 2 and "played" in played, f"plays: {played}")
    check(any(a["id"] == walk(checked("getSong", id=one["id"]), ["song"])[0]["albumId"]
              for a in walk(checked("getAlbumList2", type="frequent"), ["albumList2", "album"])), "frequent")
    check(walk(checked("getAlbumList2", type="highest"), ["albumList2", "album"]), "highest is empty")
    check(walk(checked("getNowPlaying"), ["nowPlaying", "entry"]), "now playing is empty")
    check(client.unstar(sids=[one["id"]]), "unstar")
    check("like" not in mpd.sticker_list("song", one["path"]), "unstar left the sticker")
    album = seen["album"][0]
    check(client.star(album_ids=[album["id"]]), "star album")
    check(any(a["id"] == album["id"] for a in walk(checked("getStarred2"), ["starred2", "album"])), "starred album")
    check(client.set_rating(one["id"], 0), "setRating 0")
    check("rating" not in mpd.sticker_list("song", one["path"]), "rating 0 left the sticker")
    check(error_code("setRating", id=one["id"], rating=9) == 10, "rating 9 is not 10")
    check(error_code("star", id="nothing") == 70, "star of nothing is not 70")
    client.cleanup()
    print("annotations ok", flush=True)

    # Playlists are MPD's stored playlists, both ways.
    mpd.playlistadd("From MPD", seen["song"][2]["path"])
    mpd.playlistadd("From MPD", "http://radio.example/stream")
    mpd.playlistadd("From MPD", seen["song"][3]["path"])
    lists = {p["name"]: p for p in walk(checked("getPlaylists"), ["playlists", "playlist"])}
    check("From MPD" in lists and lists["From MPD"]["songCount"] == 2, f"playlists: {lists}")
    entries = walk(checked("getPlaylist", id=lists["From MPD"]["id"]), ["playlist", "entry"])
    check([e["id"] for e in entries] == [seen["song"][2]["id"], seen["song"][3]["id"]], f"entries {entries}")
    watcher = Idle("stored_playlist")
    phone = knuckles.Subsonic(f"127.0.0.1:{PORT}", USER, PASSWORD, "knuckles", use_https=False,
                              request_method=knuckles.RequestMethod.POST)
    made = phone.playlists.create_playlist("From Phone", song_ids=[one["id"], other["id"]])
    check(watcher.wait() == ["stored_playlist"], "createPlaylist did not raise stored_playlist")
    check([e["file"] for e in mpd.listplaylistinfo("From Phone")] == [one["path"], other["path"]], "the phone's playlist on MPD")
    status = call("updatePlaylist", playlistId=lists["From MPD"]["id"], songIndexToRemove=0, songIdToAdd=one["id"], name="Renamed")
    check(status["status"] == "ok", f"updatePlaylist {status}")
    check([e["file"] for e in mpd.listplaylistinfo("Renamed")] == ["http://radio.example/stream", seen["song"][3]["path"], one["path"]],
          f"updated: {mpd.listplaylist('Renamed')}")
    check(call("deletePlaylist", id=made.id)["status"] == "ok", "deletePlaylist")
    check("From Phone" not in [p["playlist"] for p in mpd.listplaylists()], "deleted playlist still on MPD")
    check(error_code("getPlaylist", id="p" + "1" * 16) == 70, "unknown playlist is not 70")
    print("playlists ok", flush=True)
    print("ALL OK", flush=True)


main()
