import NimbusDecoder
@testable import NimbusPlayer
import XCTest

/// The follower handshake driven by event scripts, with a fake queue standing in for the
/// core: each step is an event and the actions it leads to, with the core's answers to
/// `chooseFollower` worked out from the fake queue as Partition does.
final class FollowerHandshakeTests: XCTestCase {
    /// The core's side: a queue of ids in play order, items made with fresh tokens, and a
    /// follower reused while it still fits (so its decoding is not restarted).
    private struct Core {
        var machine = FollowerHandshake()
        var queue: [Int]
        /// Queue ids by token, for readable actions.
        var ids: [UInt64: Int] = [:]

        init(queue: [Int]) { self.queue = queue }

        mutating func item(_ id: Int) -> PlayItem {
            let token = machine.newToken()
            ids[token] = id
            return PlayItem(token: token, queueID: id, uri: "song\(id)") { throw DecoderError("not opened in these tests") }
        }

        mutating func follower(of id: Int?) -> PlayItem? {
            guard let id, let index = queue.firstIndex(of: id), index + 1 < queue.count else { return nil }
            let next = queue[index + 1]
            if let named = machine.reusableFollower, named.queueID == next { return named }
            return item(next)
        }

        /// Starts song `id` the way `startCurrent` does; returns the tokens of it and its follower.
        mutating func play(_ id: Int) -> (UInt64, UInt64?) {
            machine.reset()
            let song = item(id)
            let next = follower(of: id)
            machine.start(song, follower: next)
            return (song.token, next?.token)
        }

        /// Resolves `chooseFollower` as the core does and spells the rest out.
        mutating func run(_ actions: [FollowerHandshake.Action]) -> [String] {
            actions.flatMap { action -> [String] in
                switch action {
                case .setNext(let item, let after): return ["next \(name(item?.token)) after \(name(after))"]
                case .replace(let from, let item): return ["replace \(name(from)) with \(name(item?.token))"]
                case .chooseFollower(let token): return run(machine.chose(follower(of: machine.queueID(of: token)), for: token))
                case .advance: return ["advance"]
                case .announce(let advanced, let wakes): return ["announce\(advanced ? " advanced" : "")\(wakes ? " wakes" : "")"]
                }
            }
        }

        func name(_ token: UInt64?) -> String { token.map { "\(ids[$0].map(String.init) ?? "?")#\($0)" } ?? "end" }
    }

    func testAPlainRunThroughTheQueue() {
        var core = Core(queue: [1, 2, 3])
        let (first, second) = core.play(1)
        XCTAssertEqual(core.machine.namedAfter, first)
        XCTAssertEqual(core.machine.follower?.queueID, 2)
        XCTAssertEqual(core.run(core.machine.decoding(first)), [], "the start song is expected")
        XCTAssertEqual(core.run(core.machine.started(first)), ["announce"], "the command already woke player idlers")
        XCTAssertEqual(core.run(core.machine.decoding(second!)), [], "the named follower is expected")
        let third = core.machine.newToken() + 1
        XCTAssertEqual(core.run(core.machine.started(second!)), ["advance", "next 3#\(third) after 2#\(second!)", "announce advanced wakes"])
        XCTAssertNil(core.machine.queueID(of: first), "the song heard before is forgotten")
        XCTAssertEqual(core.run(core.machine.started(third)), ["advance", "next end after 3#\(third)", "announce advanced wakes"])
        XCTAssertEqual(core.machine.playing, third)
    }

    func testAQueueEditRenamesTheFollowerAndDropsItWhenTakenUp() {
        var core = Core(queue: [1, 2, 3])
        let (first, second) = core.play(1)
        _ = core.run(core.machine.started(first))
        XCTAssertEqual(core.run(core.machine.queueEdited()), [], "the same follower: nothing to tell")
        core.queue = [1, 3, 2]
        let third = core.machine.newToken() + 1
        XCTAssertEqual(core.run(core.machine.queueEdited()), ["next 3#\(third) after 1#\(first)"], "not taken up yet: renamed only")
        XCTAssertEqual(core.run(core.machine.decoding(third)), [])
        core.queue = [1, 2, 3]
        let again = core.machine.newToken() + 1
        XCTAssertEqual(
            core.run(core.machine.queueEdited()), ["next 2#\(again) after 1#\(first)", "replace 3#\(third) with 2#\(again)"],
            "taken up already: the decoder drops it")
        XCTAssertNotEqual(second, again, "a renamed follower is a new item")
    }

    func testASongTakenUpAfterItsFollowerWasRenamedIsDropped() {
        var core = Core(queue: [1, 2, 3])
        let (first, second) = core.play(1)
        _ = core.run(core.machine.started(first))
        core.queue = [1, 3]
        let third = core.machine.newToken() + 1
        XCTAssertEqual(core.run(core.machine.queueEdited()), ["next 3#\(third) after 1#\(first)"])
        // The decoder took the old follower before it read the new answer.
        XCTAssertEqual(core.run(core.machine.decoding(second!)), ["replace 2#\(second!) with 3#\(third)"])
    }

    func testTheHeardSongIsNeverReplaced() {
        var core = Core(queue: [1, 2, 3])
        let (first, second) = core.play(1)
        _ = core.run(core.machine.started(first))
        _ = core.run(core.machine.decoding(second!))
        _ = core.run(core.machine.started(second!))
        core.queue = [2, 1]
        XCTAssertEqual(core.run(core.machine.decoding(second!)), [], "already heard")
        let named = core.run(core.machine.queueEdited())
        XCTAssertFalse(named.contains { $0.hasPrefix("replace") }, "\(named)")
    }

    func testAFailedFollowerIsFollowedAtOnce() {
        var core = Core(queue: [1, 2, 3])
        let (first, second) = core.play(1)
        _ = core.run(core.machine.started(first))
        _ = core.run(core.machine.decoding(second!))
        let third = core.machine.newToken() + 1
        XCTAssertEqual(core.run(core.machine.failed(second!)), ["next 3#\(third) after 2#\(second!)"], "the decoder goes on past it")
        XCTAssertEqual(core.run(core.machine.failed(first)), [], "only the named follower needs an answer")
        // The third song starts; the answer named after the broken song is not overwritten.
        XCTAssertEqual(core.run(core.machine.started(third)), ["advance", "next end after 3#\(third)", "announce advanced wakes"])
    }

    func testAFollowerNamedForALaterSongIsCheckedNotReplaced() {
        var core = Core(queue: [1, 2, 3])
        let (first, second) = core.play(1)
        _ = core.run(core.machine.decoding(second!))
        let third = core.machine.newToken() + 1
        _ = core.run(core.machine.failed(second!))
        XCTAssertEqual(core.machine.namedAfter, second)
        // The start song is heard only now: its follower was settled further down the chain.
        XCTAssertEqual(core.run(core.machine.started(first)), ["announce"])
        XCTAssertEqual(core.machine.follower?.token, third)
    }

    func testEventsOfAnEarlierPlaybackAreIgnored() {
        var core = Core(queue: [1, 2])
        let (old, oldNext) = core.play(1)
        let (fresh, _) = core.play(2)
        XCTAssertEqual(core.run(core.machine.started(old)), [], "a song of the playback before")
        XCTAssertEqual(core.run(core.machine.decoding(oldNext!)), [])
        XCTAssertEqual(core.run(core.machine.failed(oldNext!)), [])
        XCTAssertEqual(core.run(core.machine.started(fresh)), ["announce"])
        core.machine.reset()
        XCTAssertEqual(core.run(core.machine.queueEdited()), [], "stopped: nothing is named")
        XCTAssertNil(core.machine.playing)
    }

    func testASeekRestartIsNotAnAdvance() {
        var core = Core(queue: [1, 2])
        let (first, _) = core.play(1)
        _ = core.run(core.machine.started(first))
        let (again, _) = core.play(1)
        XCTAssertEqual(core.run(core.machine.started(again)), ["announce"], "the seek already woke player idlers")
        XCTAssertNotEqual(first, again)
    }
}
