"""What the OpenSubsonic specification requires of each kind of object in an answer
(content/en/docs/Responses/*.md, the fields marked "Req. Yes"), where each kind sits in each
answer, and the checks of both — shared by subsonic_clients.py."""

import sys


def fail(message):
    print("FAIL " + message, flush=True)
    print("FAIL " + message, file=sys.stderr, flush=True)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


# Required fields of the OpenSubsonic responses (content/en/docs/Responses/*.md, "Req. Yes").
REQUIRED = {
    "Child": [("id", str), ("isDir", bool), ("title", str)],
    "AlbumID3": [("id", str), ("name", str), ("songCount", int), ("duration", int), ("created", str)],
    "ArtistID3": [("id", str), ("name", str)],
    "playlist": [("id", str), ("name", str), ("songCount", int), ("duration", int), ("created", str), ("changed", str)],
    "directory": [("id", str), ("name", str)],
    "indexes": [("ignoredArticles", str), ("lastModified", int)],
    "artist": [("id", str), ("name", str)],
    "genre": [("value", str), ("songCount", int), ("albumCount", int)],
    "musicFolder": [("id", int)],
    "NowPlayingEntry": [("username", str), ("minutesAgo", int), ("playerId", int)],
    "user": [("username", str), ("scrobblingEnabled", bool)] + [(role, bool) for role in (
        "adminRole", "settingsRole", "downloadRole", "uploadRole", "playlistRole", "coverArtRole", "commentRole",
        "podcastRole", "streamRole", "jukeboxRole", "shareRole", "videoConversionRole")],
    "scanStatus": [("scanning", bool)],
    "index": [("name", str)],
    "ArtistsID3": [("ignoredArticles", str)],
}
# Beyond the spec: what Amperfy and Strawberry need of a song (see SongFields).
SONG_EXTRA = [("parent", str), ("albumId", str), ("artistId", str), ("size", int), ("suffix", str), ("contentType", str),
              ("type", str), ("path", str), ("created", str), ("duration", int)]

# Where each kind sits in each answer: (path of keys, kind); a list is walked item by item.
SHAPES = {
    "search3": [(["searchResult3", "artist"], "ArtistID3"), (["searchResult3", "album"], "AlbumID3"), (["searchResult3", "song"], "Song")],
    "search2": [(["searchResult2", "artist"], "artist"), (["searchResult2", "album"], "Child"), (["searchResult2", "song"], "Song")],
    "getArtists": [(["artists"], "ArtistsID3"), (["artists", "index"], "index"), (["artists", "index", "artist"], "ArtistID3")],
    "getArtist": [(["artist"], "ArtistID3"), (["artist", "album"], "AlbumID3")],
    "getAlbum": [(["album"], "AlbumID3"), (["album", "song"], "Song")],
    "getSong": [(["song"], "Song")],
    "getGenres": [(["genres", "genre"], "genre")],
    "getMusicFolders": [(["musicFolders", "musicFolder"], "musicFolder")],
    "getIndexes": [(["indexes"], "indexes"), (["indexes", "index"], "index"), (["indexes", "index", "artist"], "artist"),
                   (["indexes", "child"], "Song")],
    "getMusicDirectory": [(["directory"], "directory"), (["directory", "child"], "Child")],
    "getAlbumList2": [(["albumList2", "album"], "AlbumID3")],
    "getAlbumList": [(["albumList", "album"], "Child")],
    "getRandomSongs": [(["randomSongs", "song"], "Song")],
    "getStarred2": [(["starred2", "artist"], "ArtistID3"), (["starred2", "album"], "AlbumID3"), (["starred2", "song"], "Song")],
    "getNowPlaying": [(["nowPlaying", "entry"], "Song"), (["nowPlaying", "entry"], "NowPlayingEntry")],
    "getPlaylists": [(["playlists", "playlist"], "playlist")],
    "getPlaylist": [(["playlist"], "playlist"), (["playlist", "entry"], "Song")],
    "getUser": [(["user"], "user")],
    "getScanStatus": [(["scanStatus"], "scanStatus")],
    "getSongsByGenre": [(["songsByGenre", "song"], "Song")],
    "getTopSongs": [(["topSongs", "song"], "Song")],
}
LISTS = {"artist", "album", "song", "index", "genre", "musicFolder", "child", "entry", "playlist"}


def walk(node, path):
    """The objects at `path` (lists flattened): below the answer's own element, every
    repeatable child must be a JSON array, even of one."""
    items = [node]
    for depth, key in enumerate(path):
        found = []
        for item in items:
            value = item.get(key) if isinstance(item, dict) else None
            if value is None:
                continue
            if depth > 0 and key in LISTS:
                check(isinstance(value, list), f"'{key}' is not a JSON array: {str(value)[:80]}")
                found.extend(value)
            else:
                found.append(value)
        items = found
    return items


def required(kind, obj, where):
    fields = REQUIRED["Child"] + SONG_EXTRA if kind == "Song" else REQUIRED[kind]
    for field, kind_of in fields:
        check(field in obj, f"{where}: {kind} without '{field}': {str(obj)[:160]}")
        value = obj[field]
        ok = isinstance(value, bool) if kind_of is bool else (isinstance(value, kind_of) and not isinstance(value, bool))
        check(ok, f"{where}: {kind}.{field} is {value!r}, not {kind_of.__name__}")


def xml_required(kind, element, where):
    fields = REQUIRED["Child"] + SONG_EXTRA if kind == "Song" else REQUIRED[kind]
    for field, _ in fields:
        if kind == "genre" and field == "value":
            check(element.text, f"{where}: genre without a name")
            continue
        check(field in element.attrib, f"{where} (XML): {kind} without '{field}': {element.attrib}")
