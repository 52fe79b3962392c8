"""What the OpenSubsonic specification requires of each kind of object in an answer
(content/en/docs/Responses/*.md, the fields marked "Req. Yes"), where each kind sits in each
answer, and the checks of both — shared by subsonic_clients.py."""

import sys
import xml.etree.ElementTree as ET


def fail(message):
    print("FAIL " + message, flush=True)
    print("FAIL " + message, file=sys.stderr, flush=True)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


NUMBER = (int, float)
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
    "JukeboxStatus": [("currentIndex", int), ("playing", bool), ("gain", NUMBER)],
    "bookmark": [("position", int), ("username", str), ("created", str), ("changed", str)],
    "PlayQueue": [("username", str), ("changed", str), ("changedBy", str)],
    "PodcastChannel": [("id", str), ("url", str), ("status", str)],
    "PodcastEpisode": [("id", str), ("isDir", bool), ("title", str), ("channelId", str), ("status", str)],
    "InternetRadioStation": [("id", str), ("name", str), ("streamUrl", str)],
    "StructuredLyrics": [("lang", str), ("synced", bool)],
    "line": [("value", str)],
    "lyrics": [("value", str)],
}
# Beyond the spec: what Amperfy and Strawberry need of a song (see ItemNodes).
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
    # action=status answers jukeboxStatus, action=get jukeboxPlaylist.
    "jukeboxControl": [(["jukeboxStatus"], "JukeboxStatus"), (["jukeboxPlaylist"], "JukeboxStatus"),
                       (["jukeboxPlaylist", "entry"], "Song")],
    "getBookmarks": [(["bookmarks", "bookmark"], "bookmark"), (["bookmarks", "bookmark", "entry"], "Song")],
    "getPlayQueue": [(["playQueue"], "PlayQueue"), (["playQueue", "entry"], "Song")],
    "getPlayQueueByIndex": [(["playQueueByIndex"], "PlayQueue"), (["playQueueByIndex", "entry"], "Song")],
    "getPodcasts": [(["podcasts", "channel"], "PodcastChannel"), (["podcasts", "channel", "episode"], "PodcastEpisode")],
    "getNewestPodcasts": [(["newestPodcasts", "episode"], "PodcastEpisode")],
    "getPodcastEpisode": [(["podcastEpisode"], "PodcastEpisode")],
    "getInternetRadioStations": [(["internetRadioStations", "internetRadioStation"], "InternetRadioStation")],
    "getLyricsBySongId": [(["lyricsList", "structuredLyrics"], "StructuredLyrics"), (["lyricsList", "structuredLyrics", "line"], "line")],
    "getLyrics": [(["lyrics"], "lyrics")],
}
LISTS = {"artist", "album", "song", "index", "genre", "musicFolder", "child", "entry", "playlist", "bookmark", "channel",
         "episode", "internetRadioStation", "structuredLyrics", "line"}
# Repeatable names that are one object under this parent: a bookmark's song.
SINGLE = {("bookmark", "entry")}
# Fields that XML gives as the element's text, not as an attribute.
TEXT = {("genre", "value"), ("line", "value"), ("lyrics", "value")}


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
            if depth > 0 and key in LISTS and (path[depth - 1], key) not in SINGLE:
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
        check(ok, f"{where}: {kind}.{field} is {value!r}, not {getattr(kind_of, '__name__', 'a number')}")


def xml_required(kind, element, where):
    fields = REQUIRED["Child"] + SONG_EXTRA if kind == "Song" else REQUIRED[kind]
    for field, _ in fields:
        if (kind, field) in TEXT:
            check(element.text, f"{where}: {kind} without its text")
            continue
        check(field in element.attrib, f"{where} (XML): {kind} without '{field}': {element.attrib}")


def checked_with(call, endpoint, **params):
    """The JSON answer, its required fields checked, and the XML answer's the same way;
    `call(endpoint, fmt=…, **params)` answers the JSON root as a dict or the XML root."""
    root = call(endpoint, **params)
    check(root["status"] == "ok", f"{endpoint} {params}: {root.get('error')}")
    xml = call(endpoint, fmt="xml", **params)
    check(xml.get("status") == "ok", f"{endpoint} XML: {ET.tostring(xml)[:200]}")
    ns = "{http://subsonic.org/restapi}"
    for path, kind in SHAPES.get(endpoint, []):
        objects = walk(root, path)
        for obj in objects:
            required(kind, obj, endpoint)
        elements = xml.findall("./" + "/".join(ns + key for key in path))
        check(len(elements) == len(objects), f"{endpoint}: XML has {len(elements)} {path[-1]}, JSON {len(objects)}")
        for element in elements:
            xml_required(kind, element, endpoint)
    return root
