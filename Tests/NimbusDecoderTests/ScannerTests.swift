import NimbusDecoder
import NimbusInput
import NimbusModel
import NimbusHarness
import XCTest

final class ScannerTests: XCTestCase {
    private func scan(_ relative: String, options: ScanOptions = ScanOptions()) throws -> ScanResult {
        let path = try Fixtures.library() + "/" + relative
        let plugin = try XCTUnwrap(DecoderRegistry.standard.plugin(forPath: path))
        return try plugin.scan(try FileInputStream(path: path), options: options)
    }

    private func lines(_ result: ScanResult) -> [String] {
        result.tag.items.map { "\($0.type.wireName): \($0.value)" }
    }

    func testFLACCommentsInFileOrderWithFormatDurationAndPicture() throws {
        let result = try scan("Alpha Band/First Light/01 - Dawn.flac", options: ScanOptions(comments: true, picture: true))
        XCTAssertEqual(result.format?.description, "44100:16:2")
        XCTAssertEqual(result.tag.duration, 3000)
        XCTAssertEqual(Array(lines(result).prefix(4)), ["Artist: Alpha Band", "ArtistSort: Band, Alpha", "Album: First Light", "AlbumSort: First Light"])
        XCTAssertEqual(result.tag.values(.genre), ["Rock", "Ambient"])
        XCTAssertEqual(result.tag.first(.movement), "Prelude")
        XCTAssertEqual(result.tag.first(.movementNumber), "1")
        XCTAssertEqual(result.tag.first(.musicBrainzWorkID), "8f3a4e6c-6666-4a2b-9c3d-000000000006")
        XCTAssertEqual(result.comments.first?.key, "ARTIST")
        XCTAssertEqual(result.picture?.mimeType, "image/png")
        XCTAssertEqual(Array(result.picture?.data.prefix(4) ?? []), [0x89, 0x50, 0x4E, 0x47])
    }

    func testID3v23UTF16WithUserTextAndPicture() throws {
        let result = try scan("Alpha Band/First Light/02 - Noon.mp3", options: ScanOptions(picture: true))
        XCTAssertEqual(result.format?.description, "44100:16:2")
        XCTAssertEqual(result.tag.duration, 2000, "gapless length from the LAME header")
        XCTAssertEqual(
            lines(result),
            [
                "Artist: Alpha Band", "AlbumArtist: Alpha Band", "ArtistSort: Band, Alpha", "Title: Noon",
                "Album: First Light", "Track: 2", "Date: 2001", "Genre: Rock", "Composer: C. Writer",
                "Comment: noon comment", "Disc: 1", "MUSICBRAINZ_ALBUMID: 8f3a4e6c-2222-4a2b-9c3d-000000000002",
                "MUSICBRAINZ_ARTISTID: 8f3a4e6c-1111-4a2b-9c3d-000000000001",
            ])
        XCTAssertEqual(result.picture?.mimeType, "image/png")
    }

    func testID3v24MultipleValuesAndUFID() throws {
        let result = try scan("Beta/Beta Sides/01 - Gamma Ray.mp3")
        XCTAssertEqual(result.tag.values(.artist), ["Beta", "Guest Star"])
        XCTAssertEqual(result.tag.values(.genre), ["(17)", "Indie"])
        XCTAssertEqual(result.tag.first(.conductor), "A. Conductor")
        XCTAssertEqual(result.tag.first(.musicBrainzTrackID), "8f3a4e6c-4444-4a2b-9c3d-000000000004")
        XCTAssertEqual(result.format?.sampleRate, 32000)
    }

    func testID3v22AndID3v1() throws {
        XCTAssertEqual(
            lines(try scan("Beta/Beta Sides/02 - Old Tag.mp3")),
            ["Artist: Beta", "Title: Old Tag", "Album: Beta Sides", "Track: 2", "Date: 1998", "Genre: Jazz"])
        XCTAssertEqual(
            lines(try scan("Beta/Beta Sides/03 - Only V1.mp3")),
            ["Artist: Beta", "Title: Only V1", "Album: Beta Sides", "Track: 3", "Date: 1997", "Genre: Jazz", "Comment: v1 comment"])
    }

    func testOggVorbisNonASCIIAndRepeatedKeys() throws {
        let result = try scan("Alpha Band/Second Wind/01 - Ёлка.ogg")
        XCTAssertEqual(result.format?.description, "44100:f:2")
        XCTAssertEqual(result.tag.duration, 2000)
        XCTAssertEqual(result.tag.values(.artist), ["Alpha Band", "Ёлка Orchestra"])
        XCTAssertEqual(result.tag.first(.title), "Ёлка — зимняя")
        XCTAssertEqual(try scan("Alpha Band/Second Wind/02 - Café.ogg").format?.description, "22050:f:1")
    }

    /// TitleSort, Mood, ShowMovement and the MusicBrainz release group id (MPD 0.24), in the
    /// places MPD 0.24.13 prints them: Vorbis comments in file order; ID3 after Label, the
    /// TXXX ids before the UFID track id.
    func testTheTagsMPD024Added() throws {
        let flac = lines(try scan("Alpha Band/First Light/01 - Dawn.flac"))
        XCTAssertEqual(
            Array(flac.suffix(4)),
            ["TitleSort: Dawn, The", "Mood: Calm", "ShowMovement: 1", "MUSICBRAINZ_RELEASEGROUPID: 8f3a4e6c-7777-4a2b-9c3d-000000000007"])
        XCTAssertEqual(
            Array(lines(try scan("Beta/Beta Sides/01 - Gamma Ray.mp3")).suffix(8)),
            ["Label: Beta Label", "Mood: Bright", "TitleSort: Ray, Gamma",
             "MUSICBRAINZ_ALBUMARTISTID: 8f3a4e6c-3333-4a2b-9c3d-000000000003",
             "MUSICBRAINZ_RELEASETRACKID: 8f3a4e6c-5555-4a2b-9c3d-000000000005",
             "MUSICBRAINZ_WORKID: 8f3a4e6c-6666-4a2b-9c3d-000000000006",
             "MUSICBRAINZ_RELEASEGROUPID: 8f3a4e6c-7777-4a2b-9c3d-000000000007",
             "MUSICBRAINZ_TRACKID: 8f3a4e6c-4444-4a2b-9c3d-000000000004"])
        XCTAssertEqual(try scan("Alpha Band/Second Wind/01 - Ёлка.ogg").tag.first(.mood), "Festive")
    }

    func testWAVInfoAndID3Chunk() throws {
        let info = try scan("Alpha Band/First Light/03 - Dusk.wav")
        XCTAssertEqual(info.format?.description, "44100:16:2")
        XCTAssertEqual(info.tag.duration, 1000)
        XCTAssertEqual(
            lines(info), ["Title: Dusk", "Artist: Alpha Band", "Date: 2001", "Album: First Light", "Track: 3", "Genre: Rock"])
        let chunk = try scan("Various/quotes \"and\" spaces/id3 chunk.wav")
        XCTAssertEqual(chunk.format?.description, "44100:24:2")
        XCTAssertEqual(lines(chunk), ["Artist: Wave Artist", "Title: Chunky", "Album: Odd Names"])
        XCTAssertTrue(try scan("untagged.wav").tag.items.isEmpty)
    }

    func testBrokenFiles() throws {
        XCTAssertEqual(try scan("broken/truncated.flac").tag.duration, 3000, "STREAMINFO still describes the whole file")
        XCTAssertThrowsError(try scan("broken/random.mp3"))
    }

    func testRegistryBySuffix() {
        XCTAssertEqual(DecoderRegistry.standard.plugin(forPath: "a/B.MP3")?.name, "mpg123")
        XCTAssertEqual(DecoderRegistry.standard.plugin(forPath: "x.oga")?.name, "vorbis")
        XCTAssertNil(DecoderRegistry.standard.plugin(forPath: "notes.txt"))
        XCTAssertNil(DecoderRegistry.standard.plugin(forPath: "dir.flac/file"))
    }
}
