import NimbusModel
import NimbusSupport

/// One client's side of client-to-client messaging: the channels it listens on and the
/// messages waiting for `readmessages`.
@CoreActor
public final class Mailbox {
    public struct Message: Equatable, Sendable {
        public let channel: String
        public let text: String
    }

    public private(set) var subscriptions: Set<String> = []
    public private(set) var messages: [Message] = []
    /// Raises `idle message` on the owning client.
    let notify: @CoreActor () -> Void

    public init(notify: @escaping @CoreActor () -> Void) {
        self.notify = notify
    }

    public func drain() -> [Message] {
        defer { messages.removeAll() }
        return messages
    }

    fileprivate func insert(_ channel: String) -> Bool { subscriptions.insert(channel).inserted }
    fileprivate func remove(_ channel: String) -> Bool { subscriptions.remove(channel) != nil }

    fileprivate func push(_ message: Message, limit: Int) -> Bool {
        guard messages.count < limit, subscriptions.contains(message.channel) else { return false }
        if messages.isEmpty { notify() }
        messages.append(message)
        return true
    }
}

/// Client-to-client channels with MPD's limits (16 subscriptions, 64 queued messages per client).
@CoreActor
public final class ChannelHub {
    public enum Failure: Error, Equatable {
        case invalidName, alreadySubscribed, subscriptionListFull, notSubscribed, nobodySubscribed
    }

    public static let maximumSubscriptions = 16
    public static let maximumMessages = 64

    private var mailboxes: [ObjectIdentifier: Mailbox] = [:]
    private let idle: IdleBus

    public init(idle: IdleBus) {
        self.idle = idle
    }

    public func register(_ mailbox: Mailbox) {
        mailboxes[ObjectIdentifier(mailbox)] = mailbox
    }

    /// A departing client's subscriptions vanish silently, as in MPD (no `subscription` event).
    public func unregister(_ mailbox: Mailbox) {
        mailboxes[ObjectIdentifier(mailbox)] = nil
    }

    public func subscribe(_ mailbox: Mailbox, to channel: String) throws(Failure) {
        guard Self.isValid(channel) else { throw .invalidName }
        guard mailbox.subscriptions.count < Self.maximumSubscriptions else { throw .subscriptionListFull }
        guard mailbox.insert(channel) else { throw .alreadySubscribed }
        idle.emit(.subscription)
    }

    public func unsubscribe(_ mailbox: Mailbox, from channel: String) throws(Failure) {
        guard mailbox.remove(channel) else { throw .notSubscribed }
        idle.emit(.subscription)
    }

    /// Every channel someone listens on, sorted like MPD's std::set.
    public var channels: [String] {
        Set(mailboxes.values.flatMap(\.subscriptions)).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    public func send(_ text: String, to channel: String) throws(Failure) {
        guard Self.isValid(channel) else { throw .invalidName }
        let message = Mailbox.Message(channel: channel, text: text)
        var delivered = false
        for mailbox in mailboxes.values where mailbox.push(message, limit: Self.maximumMessages) {
            delivered = true
        }
        guard delivered else { throw .nobodySubscribed }
    }

    /// Channel names are ASCII letters, digits and `_-.:`, as MPD requires.
    public nonisolated static func isValid(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"),
                    UInt8(ascii: "."), UInt8(ascii: ":"):
                    return true
                default:
                    return false
                }
            }
    }
}
