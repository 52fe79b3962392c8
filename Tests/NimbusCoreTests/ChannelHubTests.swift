import NimbusCore
import NimbusModel
import NimbusSupport
import NimbusHarness
import XCTest

final class ChannelHubTests: XCTestCase {
    func testSubscribeSendReadAndLimits() throws {
        let outcome = try onCore { () -> [String] in
            let hub = ChannelHub(idle: IdleBus(reactor: CoreActor.loop.reactor))
            var log: [String] = []
            let a = Mailbox { log.append("notify") }
            let b = Mailbox {}
            hub.register(a)
            hub.register(b)
            func attempt(_ label: String, _ body: () throws -> Void) {
                do {
                    try body()
                    log.append("\(label): ok")
                } catch {
                    log.append("\(label): \(error)")
                }
            }
            attempt("space") { try hub.subscribe(a, to: "bad name") }
            attempt("empty") { try hub.subscribe(a, to: "") }
            attempt("sub") { try hub.subscribe(a, to: "a.b:c-d_e") }
            attempt("again") { try hub.subscribe(a, to: "a.b:c-d_e") }
            attempt("nobody") { try hub.send("hi", to: "nobody") }
            attempt("send1") { try hub.send("hello", to: "a.b:c-d_e") }
            attempt("send2") { try hub.send("world", to: "a.b:c-d_e") }
            log.append(a.drain().map(\.text).joined(separator: ","))
            log.append("after drain \(a.drain().count)")
            for index in 0..<16 { attempt("c\(index)") { try hub.subscribe(b, to: "c\(index)") } }
            attempt("17th") { try hub.subscribe(b, to: "c16") }
            log.append("channels \(hub.channels.count)")
            attempt("unsub") { try hub.unsubscribe(a, from: "other") }
            for index in 0..<70 { try? hub.send("m\(index)", to: "a.b:c-d_e") }
            log.append("queued \(a.drain().count)")
            hub.unregister(a)
            attempt("gone") { try hub.send("x", to: "a.b:c-d_e") }
            return log.filter { !$0.hasPrefix("c") || $0.hasPrefix("channels") }
        }
        XCTAssertEqual(
            outcome,
            [
                "space: invalidName", "empty: invalidName", "sub: ok", "again: alreadySubscribed",
                "nobody: nobodySubscribed", "notify", "send1: ok", "send2: ok", "hello,world", "after drain 0",
                "17th: subscriptionListFull", "channels 17", "unsub: notSubscribed", "notify", "queued 64",
                "gone: nobodySubscribed",
            ])
    }

    func testChannelNames() {
        XCTAssertTrue(ChannelHub.isValid("mpd_ratings-2.x:y"))
        XCTAssertFalse(ChannelHub.isValid("with space"))
        XCTAssertFalse(ChannelHub.isValid("ünï"))
    }
}
