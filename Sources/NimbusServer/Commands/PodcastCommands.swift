import NimbusModel
import NimbusProtocol
import NimbusSupport

/// Podcasts (Nimbus's own; MPD has none): each show is a folder under `podcasts/`, its
/// episodes songs with the feed's tags, played through the range cache. Fetching a feed waits
/// on the network, so those commands are answered off the core loop.
@CoreActor
enum PodcastCommands {
    nonisolated static let all: [Command] = [
        Command("podcastsubscribe", .add, arguments: 1...1, available: hasPodcasts, handler: subscribe),
        Command("podcastunsubscribe", .add, arguments: 1...1, available: hasPodcasts, handler: unsubscribe),
        Command("podcastkeep", .add, arguments: 2...3, available: hasPodcasts, handler: keep),
        Command("podcastrefresh", .add, arguments: 0...1, available: hasPodcasts, handler: refresh),
        Command("listpodcasts", .read, arguments: 0...0, available: hasPodcasts, handler: list),
    ]

    nonisolated static let hasPodcasts: Command.Availability = { $0.podcasts != nil }

    static func control(_ call: CommandCall) throws -> any PodcastControl {
        guard let podcasts = call.context.podcasts else { throw ProtocolError(.unknown, "No podcasts") }
        return podcasts
    }

    nonisolated static func ack(_ failure: PodcastFailure) -> ProtocolError {
        ProtocolError(failure.kind == .noSuchPodcast ? .noExist : .system, failure.description)
    }

    static func subscribe(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let podcasts = try control(call), url = call[0]
        return try DeferredAnswer.respond(remote: true, into: &out) {
            do {
                let name = try podcasts.subscribe(url)
                var out = ResponseWriter()
                out.field("podcast", name)
                return out
            } catch let error as PodcastFailure {
                throw ack(error)
            }
        }
    }

    static func unsubscribe(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        do {
            try control(call).unsubscribe(call[0])
        } catch let error as PodcastFailure {
            throw ack(error)
        }
        return .ok
    }

    /// `podcastkeep NAME N [forget]`: the newest N episodes kept offline (0 stops it);
    /// `forget`: an episode heard to its end leaves the cache, and the next one is kept.
    static func keep(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        guard let count = Int(call[1]), (0...1000).contains(count) else {
            throw ProtocolError.argument("Expected a number of episodes (0 to 1000): \"\(call[1])\"")
        }
        if call.arguments.count == 3, call[2] != "forget" { throw ProtocolError.argument("Expected \"forget\": \"\(call[2])\"") }
        do {
            try control(call).keep(call[0], count: count, forgetPlayed: call.arguments.count == 3)
        } catch let error as PodcastFailure {
            throw ack(error)
        }
        return .ok
    }

    static func refresh(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let podcasts = try control(call), name = call.arguments.first
        return try DeferredAnswer.respond(remote: true, into: &out) {
            do {
                try podcasts.refresh(name)
            } catch let error as PodcastFailure {
                throw ack(error)
            }
            return ResponseWriter()
        }
    }

    /// One record per show; `new` counts the episodes that arrived after subscribing and were
    /// not started yet (no `elapsed` or `played` sticker).
    static func list(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let stickers = call.context.stickers
        for show in try control(call).listing {
            out.field("podcast", show.name)
            out.field("url", Redaction.withoutCredentials(show.url))
            out.field("episodes", show.episodes)
            let started = { (uri: String) -> Bool in
                [SongStickers.resume, SongStickers.played].contains { name in ((try? stickers?.get(type: "song", uri: uri, name: name)) ?? nil) != nil }
            }
            out.field("new", show.arrivals.filter { !started($0) }.count)
            if let keep = show.keep { out.field("keep", keep) }
            if show.forgetsPlayed { out.field("forget", 1) }
            if let updated = show.updated { out.field("updated", iso8601: updated) }
            if let error = show.error { out.field("error", Redaction.withoutCredentials(error)) }
        }
        return .ok
    }
}
