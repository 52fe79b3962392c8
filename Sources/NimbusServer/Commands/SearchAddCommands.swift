import NimbusCore
import NimbusModel
import NimbusProtocol
import NimbusStorage
import NimbusSupport

/// findadd, searchadd (into the queue) and searchaddpl (into a stored playlist).
@CoreActor
enum SearchAddCommands {
    nonisolated static let all: [Command] = [
        Command("findadd", .add, arguments: 1...1, unlimited: true, available: DatabaseCommands.hasLibrary) { call, out in
            try addToQueue(call, foldCase: false)
        },
        Command("searchadd", .add, arguments: 1...1, unlimited: true, available: DatabaseCommands.hasLibrary) { call, out in
            try addToQueue(call, foldCase: true)
        },
        Command("searchaddpl", .control, arguments: 2...2, unlimited: true, available: DatabaseCommands.hasLibrary) { call, _ in
            let database = try DatabaseCommands.library(call).database
            let query = try QueryArguments.parse(call.arguments.dropFirst(), foldCase: true)
            let uris = try database.find(query.evaluator, sort: query.sort, window: query.window).map(\.uri)
            return try StoredPlaylistCommands.edit(call) { try $0.add(call[0], entries: uris) }
        },
    ]

    private static func addToQueue(_ call: CommandCall, foldCase: Bool) throws -> CommandResult {
        let database = try DatabaseCommands.library(call).database
        let partition = call.client.partition
        let query = try QueryArguments.parse(call.arguments[...], foldCase: foldCase, allowPosition: true)
        let position = try query.position.map { try QueueCommands.insertPosition($0, partition) }
        try partition.add(try database.find(query.evaluator, sort: query.sort, window: query.window), at: position)
        return .ok
    }
}
