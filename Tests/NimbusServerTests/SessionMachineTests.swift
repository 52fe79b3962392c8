import NimbusModel
import XCTest

@testable import NimbusServer

/// The line discipline without sockets: bytes and events in, actions out.
final class SessionMachineTests: XCTestCase {
    private var machine = SessionMachine(commandListLimit: 64, now: 0)

    override func setUp() { machine = SessionMachine(commandListLimit: 64, now: 0) }

    private func feed(_ text: String) {
        let bytes = Array(text.utf8)
        let (fits, count) = machine.receive { buffer in
            let count = min(buffer.count, bytes.count)
            buffer.copyBytes(from: bytes[..<count])
            return count
        }
        XCTAssertTrue(fits)
        XCTAssertEqual(count, bytes.count, "the buffer had no room for the whole text")
    }

    /// The next action, with an executed line shown as its text.
    private func next(now: UInt64 = 0) -> String? {
        guard let action = machine.next(now: now) else { return nil }
        switch action {
        case .execute(let line, let index, let deferrable):
            return "execute \(String(decoding: line, as: UTF8.self)) @\(index)\(deferrable ? " deferrable" : "")"
        case .writeOK: return "OK"
        case .writeListOK: return "list_OK"
        case .answerIdle(let events): return "idle " + events.names.joined(separator: ",")
        case .close(let reason): return "close \(reason)"
        case .finish: return "finish"
        case .kill: return "kill"
        case .rejectLongLine(let command): return "reject \(command)"
        }
    }

    /// Feeds `text` however many reads it takes (an overlong line is dropped as it comes).
    private func pour(_ text: String) {
        var bytes = ArraySlice(Array(text.utf8))
        while !bytes.isEmpty {
            let (fits, count) = machine.receive { buffer in
                let count = min(buffer.count, bytes.count)
                buffer.copyBytes(from: bytes.prefix(count))
                return count
            }
            guard fits, count > 0 else { return XCTFail("no room with \(bytes.count) bytes left") }
            bytes = bytes.dropFirst(count)
        }
    }

    func testALineRunsOnceItIsCompleteAndAnswersOK() {
        feed("pi")
        XCTAssertNil(next())
        feed("ng \r\n")
        XCTAssertEqual(next(), "execute ping @0 deferrable")
        XCTAssertNil(next(), "nothing more until the command completed")
        machine.completed(.ok, now: 0)
        XCTAssertEqual(next(), "OK")
        XCTAssertNil(next())
    }

    func testAFailedCommandWritesNothingMore() {
        feed("bogus\nping\n")
        XCTAssertEqual(next(), "execute bogus @0 deferrable")
        machine.completed(.failed, now: 0)
        XCTAssertEqual(next(), "execute ping @0 deferrable")
    }

    func testStrayNoidleIsIgnored() {
        feed("noidle\nnoidle\nping\n")
        XCTAssertEqual(next(), "execute ping @0 deferrable")
    }

    func testIdleAnswersOnlySubscribedEventsAndKeepsTheRest() {
        feed("idle player\n")
        XCTAssertEqual(next(), "execute idle player @0 deferrable")
        machine.completed(.idle(.player), now: 0)
        XCTAssertNil(next())
        XCTAssertFalse(machine.idleEventsOccurred(.mixer))
        XCTAssertTrue(machine.idleEventsOccurred(.player))
        XCTAssertEqual(machine.takeIdleAnswer(now: 5), .player)
        XCTAssertEqual(machine.pendingIdle, .mixer, "an unsubscribed event stays pending")
        XCTAssertEqual(machine.lastActivity, 5)
        XCTAssertNil(machine.takeIdleAnswer(now: 6), "the idle is over")
    }

    func testPendingEventsAnswerAnIdleAtOnce() {
        _ = machine.idleEventsOccurred([.options, .output])
        feed("idle options\n")
        _ = next()
        machine.completed(.idle(.options), now: 0)
        XCTAssertEqual(next(), "idle options")
        XCTAssertEqual(machine.pendingIdle, .output)
    }

    func testNoidleEndsIdleAndAnyOtherLineCloses() {
        feed("idle\nnoidle\nidle\nstatus\n")
        _ = next()
        machine.completed(.idle(.all), now: 0)
        XCTAssertEqual(next(), "OK")
        _ = next()
        machine.completed(.idle(.all), now: 0)
        XCTAssertEqual(next(), "close commandDuringIdle")
        XCTAssertTrue(machine.isClosed)
        XCTAssertNil(next())
    }

    func testIdleAndDeferredAreExemptFromTheTimeout() {
        feed("idle\n")
        _ = next()
        XCTAssertFalse(machine.isExemptFromTimeout)
        machine.completed(.idle(.all), now: 0)
        XCTAssertTrue(machine.isExemptFromTimeout)
    }

    func testCommandListOKRunsEveryLineWithListOKs() {
        feed("command_list_ok_begin\nping\nstatus\ncommand_list_end\n")
        XCTAssertEqual(next(), "execute ping @0")
        machine.completed(.ok, now: 0)
        XCTAssertEqual(next(), "list_OK")
        XCTAssertEqual(next(), "execute status @1")
        machine.completed(.ok, now: 0)
        XCTAssertEqual(next(), "list_OK")
        XCTAssertEqual(next(), "OK")
        XCTAssertNil(next())
    }

    func testPlainCommandListStopsAtTheFirstFailure() {
        feed("command_list_begin\nping\nbogus\nping\ncommand_list_end\nping\n")
        XCTAssertEqual(next(), "execute ping @0")
        machine.completed(.ok, now: 0)
        XCTAssertEqual(next(), "execute bogus @1")
        machine.completed(.failed, now: 0)
        XCTAssertEqual(next(), "execute ping @0 deferrable", "the rest of the list is dropped, no OK")
    }

    func testAnEmptyListAnswersOK() {
        feed("command_list_begin\ncommand_list_end\n")
        XCTAssertEqual(next(), "OK")
    }

    func testABareIdleOrNoidleInAListCloses() {
        feed("command_list_begin\nping\nnoidle\n")
        XCTAssertEqual(next(), "close idleInCommandList")
        XCTAssertNil(next(), "nothing of the list ran")
        machine = SessionMachine(commandListLimit: 64, now: 0)
        feed("command_list_ok_begin\nidle\n")
        XCTAssertEqual(next(), "close idleInCommandList")
    }

    func testACommandListBeyondItsLimitCloses() {
        feed("command_list_begin\n" + String(repeating: "ping\n", count: 13))
        XCTAssertEqual(next(), "close commandListTooLong")
    }

    /// MPD closes the connection; Nimbus drops the line through its newline, answers an ACK
    /// naming its command, and goes on with the next line.
    func testALineLongerThanTheBufferIsDroppedAndAnsweredThenTheNextLineRuns() {
        pour("addaccount " + String(repeating: "x", count: SessionMachine.inputCapacity))
        XCTAssertNil(next(), "the line has not ended yet")
        pour(String(repeating: "y", count: 3 * SessionMachine.inputCapacity))
        XCTAssertNil(next())
        pour("zzz\nping\n")
        XCTAssertEqual(next(), "reject addaccount")
        XCTAssertEqual(next(), "execute ping @0 deferrable")
    }

    func testAnOverlongLineInACommandListDropsTheList() {
        feed("command_list_begin\nping\n")
        XCTAssertNil(next(), "collecting")
        pour(String(repeating: "x", count: SessionMachine.inputCapacity + 10) + "\nstatus\n")
        XCTAssertEqual(next(), "reject ")
        XCTAssertEqual(next(), "execute status @0 deferrable")
    }

    func testConsumedLinesMakeRoomForMore() {
        let line = String(repeating: "x", count: 99) + "\n"
        for _ in 0..<200 {
            feed(line)
            XCTAssertNotNil(next())
            machine.completed(.failed, now: 0)
        }
    }

    func testADeferredAnswerHoldsTheFollowingLines() {
        feed("albumart x 0\nping\n")
        XCTAssertEqual(next(), "execute albumart x 0 @0 deferrable")
        machine.completed(.deferred, now: 0)
        XCTAssertNil(next())
        XCTAssertTrue(machine.isExemptFromTimeout)
        machine.deferredFinished(succeeded: true, now: 9)
        XCTAssertEqual(machine.lastActivity, 9)
        XCTAssertEqual(next(), "OK")
        XCTAssertEqual(next(), "execute ping @0 deferrable")
    }

    func testBlockedOutputPausesProcessing() {
        feed("ping\n")
        machine.outputBlocked = true
        XCTAssertNil(next())
        machine.outputBlocked = false
        XCTAssertEqual(next(), "execute ping @0 deferrable")
    }

    func testAnUnfinishedLineIsSilenceForTheTimeout() {
        feed("ping\n")
        _ = next(now: 100)
        machine.completed(.ok, now: 100)
        _ = next(now: 100)
        feed("pi")
        XCTAssertNil(next(now: 200))
        XCTAssertEqual(machine.lastActivity, 100, "a partial line is no activity")
        feed("ng\n")
        _ = next(now: 300)
        XCTAssertEqual(machine.lastActivity, 300)
    }

    func testClosingOutcomesEndTheSession() {
        feed("close\nping\n")
        _ = next()
        machine.completed(.finish, now: 0)
        XCTAssertEqual(next(), "finish")
        XCTAssertNil(next(), "nothing runs after close")
        setUp()
        feed("command_list_ok_begin\nkill\nping\ncommand_list_end\n")
        _ = next()
        machine.completed(.kill, now: 0)
        XCTAssertEqual(next(), "kill")
        XCTAssertNil(next())
    }
}
