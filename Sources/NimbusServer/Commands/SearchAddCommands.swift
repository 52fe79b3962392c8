import NimbusCore
import NimbusModel
import NimbusProtocol
import NimbusSupport

/// findadd, searchadd (into the queue) and searchaddpl (into a stored playlist).
@CoreActor
enum SearchAddCommands {
    nonisolated static let all: [Command] = [
        Command("findadd", .add, arguments: 1...1, unlimited: true, available: DatabaseCommands.hasLibrary, handler: findadd),
        Command("searchadd", .add, arguments: 1...1, unlimited: true, available: DatabaseCommands.hasLibrary, handler: searchadd),
        Command("searchaddpl", .control, arguments: 2...2, unlimited: true, available: DatabaseCommands.hasLibrary, handler: searchaddpl),
    ]

    /// MPD 0.24: `position N` inserts there (the playlist is created if missing, N may not
    /// pass its end); the playlist is only written when something matched.
    private static func addToPlaylist(_ call: CommandCall) throws -> CommandResult {
        let database = try DatabaseCommands.library(call).database
        var arguments = call.arguments.dropFirst()
        var position: Int?
        if arguments.count >= 2, arguments[arguments.endIndex - 2] == "position" {
            position = Int(try Arguments.unsigned(arguments.last!))
            arguments = arguments.dropLast(2)
        }
        let query = try QueryArguments.parse(arguments, foldCase: true)
        let uris = try database.find(query.evaluator, sort: query.sort, window: query.window).map(\.uri)
        let store = try StoredPlaylistCommands.store(call)
        if let position {
            let length = store.exists(call[0]) ? try store.load(call[0]).count : 0
            guard position <= length else { throw ProtocolError.argument("Bad position") }
        }
        guard !uris.isEmpty else { return .ok }
        return try StoredPlaylistCommands.edit(call) { try $0.add(call[0], entries: uris, at: position) }
    }

    private static func addToQueue(_ call: CommandCall, foldCase: Bool) throws -> CommandResult {
        let database = try DatabaseCommands.library(call).database
        let partition = call.session.partition
        let query = try QueryArguments.parse(call.arguments[...], foldCase: foldCase, allowPosition: true)
        let position = try query.position.map { try QueueCommands.insertPosition($0, partition) }
        try partition.add(try database.find(query.evaluator, sort: query.sort, window: query.window), at: position)
        return .ok
    }

    static func findadd(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try addToQueue(call, foldCase: false)
    }

    static func searchadd(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try addToQueue(call, foldCase: true)
    }

    static func searchaddpl(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try addToPlaylist(call)
    }

}
