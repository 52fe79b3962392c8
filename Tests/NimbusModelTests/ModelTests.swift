import NimbusModel
import XCTest

/// The value types every layer shares: wire names, formats, masks, permissions.
final class ModelTests: XCTestCase {
    func testAudioFormatsParseAndPrintAsMPDDoes() {
        let parsed = AudioFormat.parse("44100:16:2")
        XCTAssertEqual(parsed?.rate, 44100)
        XCTAssertEqual(parsed?.sample, .s16)
        XCTAssertEqual(parsed?.channels, 2)
        XCTAssertEqual(AudioFormat(sampleRate: 48000, sample: .float, channels: 2).description, "48000:f:2")
        XCTAssertEqual(AudioFormat(sampleRate: 352800, sample: .dsd, channels: 2).description, "dsd64:2")
        let mask = AudioFormat.parse("*:24:*")
        XCTAssertNil(mask?.rate)
        XCTAssertEqual(mask?.sample, .s24)
        XCTAssertNil(mask?.channels)
        for bad in ["44100:16", "44100:12:2", "x:16:2", "44100:16:y", ""] { XCTAssertNil(AudioFormat.parse(bad), bad) }
        XCTAssertEqual(AudioFormat(sampleRate: 44100, sample: .s24, channels: 2).frameBytes, 8, "24-bit travels in 32")
    }

    func testTagNamesAreCaseInsensitiveAndPrintCanonically() {
        XCTAssertEqual(TagType(name: "albumartist"), .albumArtist)
        XCTAssertEqual(TagType(name: "MUSICBRAINZ_TRACKID")?.wireName, "MUSICBRAINZ_TRACKID")
        XCTAssertEqual(TagType(name: "ARTISTSORT")?.wireName, "ArtistSort")
        XCTAssertNil(TagType(name: "nosuchtag"))
        XCTAssertEqual(TagType.albumArtistSort.fallbacks, [.albumArtist, .artistSort, .artist])
        XCTAssertFalse(TagMask.defaultEnabled.contains(.comment), "Comment is off by default, as in MPD")
        XCTAssertEqual(TagMask.defaultEnabled.tags.count, TagType.allCases.count - 1)
    }

    func testTagMasksCombine() {
        let some = TagMask([.artist, .album])
        XCTAssertEqual(some.union(TagMask([.title])).tags, [.artist, .album, .title])
        XCTAssertEqual(some.subtracting(TagMask([.artist])).tags, [.album])
        XCTAssertEqual(some.intersection(.none).tags, [])
    }

    func testTagFallbacksAndValues() {
        let tag = Tag(items: [TagItem(.artist, "A"), TagItem(.artist, "B"), TagItem(.title, "T")])
        XCTAssertEqual(tag.values(.artist), ["A", "B"])
        XCTAssertEqual(tag.first(.title), "T")
        XCTAssertEqual(tag.firstWithFallback(.albumArtist), "A", "AlbumArtist falls back to Artist")
        XCTAssertNil(tag.first(.album))
    }

    func testIdleEventNamesInMPDsOrder() {
        XCTAssertEqual(IdleEvents.all.names.count, 14)
        XCTAssertEqual(IdleEvents.all.names.first, "database")
        XCTAssertEqual(IdleEvents.all.names.last, "partition")
        XCTAssertEqual(IdleEvents(name: "Stored_Playlist"), .storedPlaylist)
        XCTAssertNil(IdleEvents(name: "bogus"))
        XCTAssertEqual(IdleEvents([.mixer, .player]).names, ["player", "mixer"])
    }

    func testPermissionsParseFromTheConfig() throws {
        XCTAssertEqual(try Permission(parsing: "read,add"), [.read, .add])
        XCTAssertEqual(try Permission(parsing: "read,,admin"), [.read, .admin])
        XCTAssertThrowsError(try Permission(parsing: "read,fly"))
    }

    func testSongsKnowWhetherTheyAreURLs() {
        XCTAssertTrue(Song(uri: "http://radio/stream").isURL)
        XCTAssertFalse(Song(uri: "Artist/Album/01.flac").isURL)
    }

    func testASongsLocationIsWorkedOutOnce() {
        let mounts: (String) -> Bool = { $0 == "yadisk" }
        XCTAssertEqual(SongLocation("Artist/01.flac", isMount: mounts), .library("Artist/01.flac"))
        XCTAssertEqual(SongLocation("yadisk/Jazz/01.flac", isMount: mounts), .mounted(mount: "yadisk", path: "yadisk/Jazz/01.flac"))
        XCTAssertEqual(SongLocation("https://host/a.mp3", isMount: mounts), .url("https://host/a.mp3"))
        XCTAssertEqual(SongLocation("/home/me/a.flac", isMount: mounts), .file("/home/me/a.flac"))
        XCTAssertTrue(SongLocation("yadisk/x.flac", isMount: mounts).isNetwork)
        XCTAssertFalse(SongLocation("Artist/01.flac", isMount: mounts).isNetwork)
        XCTAssertTrue(SongLocation("yadisk/x.flac", isMount: mounts).isInLibrary)
        XCTAssertFalse(SongLocation("", isMount: mounts).isMounted, "the root is no mount")
    }

    func testOnePathRuleAsMPDsSafeLocalURI() {
        for safe in ["", "a", "a/b", "...", "a/.../b", "a b/c.flac"] { XCTAssertTrue(StoragePath.isSafe(safe), safe) }
        for unsafe in ["/a", "a/", "a//b", ".", "..", "a/../b", "a/./b", "./a"] { XCTAssertFalse(StoragePath.isSafe(unsafe), unsafe) }
    }

    /// A song keeps "not known" apart from every value after its fields were packed, and a
    /// change to its tag made through a copy leaves the copy's source alone.
    func testSongFieldsRoundTripAndCopyOnWrite() {
        let format = AudioFormat(sampleRate: 44100, sample: .s16, channels: 2)
        var song = Song(uri: "a.flac", lastModified: 0, added: nil, format: format, tag: Tag(duration: 0))
        XCTAssertEqual(song.lastModified, 0)
        XCTAssertNil(song.added)
        XCTAssertEqual(song.tag.duration, 0)
        XCTAssertEqual(song.format, format)
        song.lastModified = nil
        song.added = 1_700_000_000
        XCTAssertNil(song.lastModified)
        XCTAssertEqual(song.added, 1_700_000_000)
        song.tag.duration = nil
        XCTAssertNil(song.tag.duration)
        let before = song
        song.tag.duration = 1234
        XCTAssertEqual(song.tag.duration, 1234)
        XCTAssertNil(before.tag.duration, "the copy taken before the change keeps its own fields")
        XCTAssertNotEqual(song, before)
    }

    /// `join` builds its string byte by byte: the same text as concatenation, any script.
    func testJoinIsConcatenationWithASlash() {
        XCTAssertEqual(StoragePath.join("", "a.flac"), "a.flac")
        XCTAssertEqual(StoragePath.join("Café/Ünï", "Dawn — 夜明け.flac"), "Café/Ünï/Dawn — 夜明け.flac")
        XCTAssertEqual(StoragePath.join("A", ""), "A/")
        XCTAssertEqual(StoragePath.join("a", "b").utf8.count, 3)
    }
}
