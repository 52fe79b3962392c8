import NimbusProtocol
import NimbusSupport

/// Client-to-client messaging: subscribe, unsubscribe, channels, readmessages, sendmessage.
@CoreActor
enum MessageCommands {
    nonisolated static let all: [Command] = [
        Command("subscribe", .read, arguments: 1...1) { call, out in
            try call.context.channels.subscribe(call.client.mailbox, to: call[0])
            return .ok
        },
        Command("unsubscribe", .read, arguments: 1...1) { call, out in
            try call.context.channels.unsubscribe(call.client.mailbox, from: call[0])
            return .ok
        },
        Command("channels", .read, arguments: 0...0) { call, out in
            for channel in call.context.channels.channels { out.field("channel", channel) }
            return .ok
        },
        Command("readmessages", .read, arguments: 0...0) { call, out in
            for message in call.client.mailbox.drain() {
                out.field("channel", message.channel)
                out.field("message", message.text)
            }
            return .ok
        },
        Command("sendmessage", .control, arguments: 2...2) { call, out in
            try call.context.channels.send(call[1], to: call[0])
            return .ok
        },
    ]
}
