import NimbusLibrary
import NimbusModel
import NimbusProtocol
import NimbusStickers
import NimbusStorage
import NimbusSupport

/// `sticker get|set|delete|list|find song …` as MPD 0.23 has them (only the `song` type),
/// listed only when a sticker database is configured.
@CoreActor
enum StickerCommands {
    nonisolated static let all: [Command] = [
        Command("sticker", .admin, arguments: 3...3, unlimited: true, available: { $0.stickers != nil }, handler: sticker)
    ]

    static func sticker(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        guard let store = call.context.stickers else { throw ProtocolError(.unknown, "sticker database is disabled") }
        guard call[1] == "song" else { throw ProtocolError.argument("unknown sticker domain") }
        let arguments = call.arguments
        do {
            switch (arguments[0], arguments.count) {
            case ("get", 4):
                let uri = try songURI(arguments[2], call)
                guard let value = try store.get(type: "song", uri: uri, name: arguments[3]) else {
                    throw ProtocolError(.noExist, "no such sticker")
                }
                out.field("sticker", arguments[3] + "=" + value)
            case ("list", 3):
                let uri = try songURI(arguments[2], call)
                for (name, value) in try store.list(type: "song", uri: uri) { out.field("sticker", name + "=" + value) }
            case ("set", 5):
                let uri = try songURI(arguments[2], call)
                try store.set(type: "song", uri: uri, name: arguments[3], value: arguments[4])
                call.context.idle.emit(.sticker)
            case ("delete", 3), ("delete", 4):
                let uri = try songURI(arguments[2], call)
                guard try store.delete(type: "song", uri: uri, name: arguments.count == 4 ? arguments[3] : nil) else {
                    throw ProtocolError(.noExist, "no such sticker")
                }
                call.context.idle.emit(.sticker)
            case ("find", 4), ("find", 6):
                try find(store, call, &out)
            default:
                throw ProtocolError.argument("bad request")
            }
        } catch let failure as StickerStore.Failure {
            call.context.logger.error(failure.message)
            throw ProtocolError(.unknown, failure.message)
        }
        return .ok
    }

    /// The song must be in the database, as in MPD (also for cloud songs, which are).
    private static func songURI(_ argument: String, _ call: CommandCall) throws -> String {
        guard let database = call.context.library?.database, StoragePath.isSafe(argument),
            let song = database.song(at: argument)
        else { throw ProtocolError(.noExist, "No such song") }
        return song.uri
    }

    private static func find(_ store: StickerStore, _ call: CommandCall, _ out: inout ResponseWriter) throws {
        let arguments = call.arguments
        var comparison: (StickerStore.Comparison, String)?
        if arguments.count == 6 {
            guard let op = StickerStore.Comparison(rawValue: arguments[4]) else { throw ProtocolError.argument("bad operator") }
            comparison = (op, arguments[5])
        }
        let database = call.context.library?.database
        for (uri, value) in try store.find(type: "song", base: arguments[2], name: arguments[3], comparison: comparison) {
            // Stickers of songs no longer in the database are kept but not listed.
            guard database?.song(at: uri) != nil else { continue }
            out.field("file", uri)
            out.field("sticker", arguments[3] + "=" + value)
        }
    }
}
