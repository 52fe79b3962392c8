import NimbusModel
@testable import NimbusSources
import XCTest

final class PlaylistFormatsTests: XCTestCase {
    private let formats = PlaylistFormats.standard

    private func parse(_ text: String, type: String? = nil, uri: String = "http://h/x") -> [PlaylistEntry]? {
        formats.parse(Array(text.utf8), mimeType: type, uri: uri)
    }

    func testExtendedM3UNamesAndDurationsAsMPD() throws {
        let entries = try XCTUnwrap(parse("\u{FEFF}#EXTM3U\r\n#EXTINF:-1,Radio\r\nhttp://a\r\n#EXTINF:-1,\nhttp://b\n#EXTINF:12,  T  \n  c.mp3  \n#EXTINF:bad\nd\n", uri: "http://h/l.m3u"))
        XCTAssertEqual(entries.map(\.uri), ["http://a", "http://b", "c.mp3", "d"])
        XCTAssertEqual(entries[0].tag, Tag(items: [TagItem(.name, "Radio")], duration: 0))
        XCTAssertEqual(entries[1].tag, Tag())
        XCTAssertEqual(entries[2].tag, Tag(items: [TagItem(.name, "T")], duration: 12_000))
        XCTAssertEqual(entries[3].tag, Tag())
    }

    func testPlainM3UAndTheChoiceByTypeThenSuffixThenBytes() {
        XCTAssertEqual(parse("a.mp3\n# c\n\nb.ogg", uri: "http://h/l.m3u")?.map(\.uri), ["a.mp3", "b.ogg"])
        XCTAssertEqual(parse("[playlist]\nNumberOfEntries=1\nFile1=x", type: "audio/x-scpls; charset=UTF-8")?.map(\.uri), ["x"])
        XCTAssertEqual(parse("[playlist]\nFile1=x", uri: "http://h/a.PLS?session=1")?.map(\.uri), ["x"])
        XCTAssertEqual(parse("http://stream/one\n", type: "text/plain")?.map(\.uri), ["http://stream/one"])
        XCTAssertNil(parse("just some words", type: "text/plain"))
        XCTAssertNil(parse("<html><body>404</body></html>", type: "text/html"))
    }

    func testPLSKeepsToNumberOfEntries() throws {
        let text = "junk\n[Playlist]\nnumberofentries=2\nFile3=c\nfile1=a\nTitle1=A\nLength1=61\n; note\nFile2=b\nLength2=-1\n[other]\nFile4=d\n"
        let entries = try XCTUnwrap(parse(text, uri: "http://h/l.pls"))
        XCTAssertEqual(entries.map(\.uri), ["a", "b"])
        XCTAssertEqual(entries[0].tag, Tag(items: [TagItem(.title, "A")], duration: 61_000))
        XCTAssertEqual(entries[1].tag, Tag())
        XCTAssertEqual(parse("[playlist]\nNumberOfEntries=0\nFile1=a", uri: "http://h/l.pls")?.count, 0)
        XCTAssertNil(parse("File1=a", uri: "http://h/l.pls"))
    }

    func testXSPFTracksAndHostileXML() throws {
        let xspf = """
            <playlist xmlns="http://xspf.org/ns/0/"><trackList><track><location> http://x/1 </location><title>T</title>\
            <creator>C</creator><annotation>N</annotation><album>A</album><trackNum>2</trackNum><duration>1500</duration></track>\
            <track><title>no location</title></track></trackList></playlist>
            """
        let entries = try XCTUnwrap(parse(xspf, uri: "http://h/l.xspf"))
        XCTAssertEqual(entries.map(\.uri), ["http://x/1"])
        XCTAssertEqual(entries[0].tag.items.map(\.value), ["T", "C", "N", "A", "2"])
        XCTAssertEqual(entries[0].tag.duration, 1500)
        XCTAssertNil(parse("<playlist xmlns=\"other\"/>", uri: "http://h/l.xspf"))
        let bomb = "<!DOCTYPE p [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]><playlist xmlns=\"http://xspf.org/ns/0/\">&b;</playlist>"
        XCTAssertNil(parse(bomb, uri: "http://h/l.xspf"))
    }

    func testLargeAndBinaryInputStaysBounded() throws {
        let many = "#EXTM3U\n" + (0..<100_000).map { "http://h/\($0).mp3" }.joined(separator: "\n")
        XCTAssertEqual(parse(many, uri: "http://h/l.m3u")?.count, 100_000)
        var binary = [UInt8](repeating: 0, count: 8192)
        binary[0] = 0x61
        XCTAssertNil(formats.parse(binary, mimeType: "application/octet-stream", uri: "http://h/x"))
        XCTAssertEqual(parse("[playlist]\nNumberOfEntries=99999999\nFile70000=x\nFile1=y", uri: "http://h/l.pls")?.map(\.uri), ["y"])
    }

    func testRelativeEntriesResolveAgainstThePlaylist() {
        let base = URL(string: "http://h:8/dir/list.m3u?x=1")
        XCTAssertEqual(SongSources.resolve("song one.ogg", against: base), "http://h:8/dir/song%20one.ogg")
        XCTAssertEqual(SongSources.resolve("../up.mp3", against: base), "http://h:8/up.mp3")
        XCTAssertEqual(SongSources.resolve("/root.mp3", against: base), "http://h:8/root.mp3")
        XCTAssertEqual(SongSources.resolve("https://other/x", against: base), "https://other/x")
    }
}
