@testable import NimbusLibrary
import NimbusModel
import XCTest

/// The pool an update runs its scanned songs through: equal long values end up in one
/// storage, nothing of the scan's strings is kept, and the song reads back the same.
final class TagValuePoolTests: XCTestCase {
    private func address(_ value: String) -> UnsafeRawPointer? {
        var value = value
        return value.withUTF8 { UnsafeRawPointer($0.baseAddress) }
    }

    private func scanned(_ name: String, title: String) -> LibrarySong {
        // Built from pieces so each song's strings are storage of their own, as a scan's are.
        let album = ["The Dark Side of", "the Moon (Remastered)"].joined(separator: " ")
        let tag = Tag(items: [TagItem(.album, album), TagItem(.title, title), TagItem(.track, "1")], duration: 1000)
        return LibrarySong(name: name, modified: 7, added: 9, format: nil, tag: tag, size: 123)
    }

    func testEqualLongValuesShareOneStorageAndNothingOfTheScanIsKept() {
        var pool = TagValuePool()
        let first = scanned("01 Speak to Me.flac", title: "Speak to Me / Breathe")
        let second = scanned("02 On the Run.flac", title: "On the Run (instrumental)")
        XCTAssertNotEqual(address(first.tag.items[0].value), address(second.tag.items[0].value))

        let keptFirst = pool.kept(first), keptSecond = pool.kept(second)
        XCTAssertEqual(keptFirst, first)
        XCTAssertEqual(keptSecond, second)
        XCTAssertEqual(keptFirst.size, 123)
        XCTAssertEqual(keptFirst.added, 9)
        XCTAssertEqual(address(keptFirst.tag.items[0].value), address(keptSecond.tag.items[0].value))
        XCTAssertNotEqual(address(keptFirst.tag.items[0].value), address(first.tag.items[0].value))
        XCTAssertNotEqual(address(keptFirst.name), address(first.name))
        XCTAssertNotEqual(address(keptFirst.tag.items[1].value), address(first.tag.items[1].value))
    }
}
