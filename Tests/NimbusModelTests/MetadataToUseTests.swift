import NimbusModel
import XCTest

/// `metadata_to_use` read as MPD 0.24 reads it.
final class MetadataToUseTests: XCTestCase {
    func testListsReplaceSignsChangeAndNoneClears() {
        XCTAssertEqual(TagMask.parsing(metadataToUse: "none").mask, .none)
        let listed = TagMask.parsing(metadataToUse: "artist, album,title")
        XCTAssertEqual(listed.mask, TagMask([.artist, .album, .title]))
        XCTAssertEqual(listed.unknown, [])
        var comment = TagMask.defaultEnabled
        comment.insert(.comment)
        XCTAssertEqual(TagMask.parsing(metadataToUse: "+comment").mask, comment)
        var fewer = TagMask.defaultEnabled
        fewer.remove(.genre)
        fewer.remove(.date)
        XCTAssertEqual(TagMask.parsing(metadataToUse: "-genre,date").mask, fewer, "a sign holds for the items after it")
        let unknown = TagMask.parsing(metadataToUse: "artist,nosuch")
        XCTAssertEqual(unknown.mask, TagMask([.artist]))
        XCTAssertEqual(unknown.unknown, ["nosuch"])
    }
}
