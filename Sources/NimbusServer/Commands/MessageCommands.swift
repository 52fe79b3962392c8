import NimbusProtocol
import NimbusSupport

/// Client-to-client messaging: subscribe, unsubscribe, channels, readmessages, sendmessage
/// (and mpdscheduler's `scheduler` channel, which the daemon itself listens to).
@CoreActor
enum MessageCommands {
    nonisolated static let all: [Command] = [
        Command("subscribe", .read, arguments: 1...1, handler: subscribe),
        Command("unsubscribe", .read, arguments: 1...1, handler: unsubscribe),
        Command("channels", .read, arguments: 0...0, handler: channels),
        Command("readmessages", .read, arguments: 0...0, handler: readmessages),
        Command("sendmessage", .control, arguments: 2...2, handler: sendmessage),
    ]

    static func subscribe(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try call.context.channels.subscribe(call.session.mailbox, to: call[0])
        return .ok
    }

    static func unsubscribe(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try call.context.channels.unsubscribe(call.session.mailbox, from: call[0])
        return .ok
    }

    static func channels(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        for channel in call.context.channels.channels { out.field("channel", channel) }
        return .ok
    }

    static func readmessages(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        for message in call.session.mailbox.drain() {
            out.field("channel", message.channel)
            out.field("message", message.text)
        }
        return .ok
    }

    /// A message to the `scheduler` channel that mpdscheduler would understand sets the sleep
    /// timer (the daemon is that channel's listener), and still reaches any subscriber.
    static func sendmessage(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        if call[0] == "scheduler", call.session.permission.contains(.player), let request = SleepCommands.schedulerRequest(call[1]) {
            call.session.partition.sleep.set(request)
            try? call.context.channels.send(call[1], to: call[0])
            return .ok
        }
        try call.context.channels.send(call[1], to: call[0])
        return .ok
    }

}
