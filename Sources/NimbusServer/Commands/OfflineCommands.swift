import NimbusModel
import NimbusOffline
import NimbusProtocol
import NimbusSupport

/// Nimbus's own offline commands (MPD has none): pin, pinplaylist, unpin, unpinplaylist,
/// listpins, pinstatus, pausepin, resumepin, retrypin. Changing pins needs `add`, as adding
/// to the queue does; listing needs `read`. Answers are MPD's `key: value` records, and
/// progress raises the `offline` idle event, which only clients that name it receive.
@CoreActor
enum OfflineCommands {
    nonisolated static let all: [Command] = [
        Command("cachestatus", .read, arguments: 0...0, available: hasOffline, handler: cacheStatus),
        Command("listpins", .read, arguments: 0...0, available: hasOffline, handler: listPins),
        Command("pausepin", .add, arguments: 0...1, available: hasOffline, handler: pausepin),
        Command("pin", .add, arguments: 1...1, available: hasOffline, handler: pin),
        Command("pinplaylist", .add, arguments: 1...1, available: hasOffline, handler: pinPlaylist),
        Command("pinstatus", .read, arguments: 0...1, available: hasOffline, handler: pinStatus),
        Command("resumepin", .add, arguments: 0...1, available: hasOffline, handler: resumepin),
        Command("retrypin", .add, arguments: 0...1, available: hasOffline, handler: retrypin),
        Command("unpin", .add, arguments: 1...1, available: hasOffline, handler: unpin),
        Command("unpinplaylist", .add, arguments: 1...1, available: hasOffline, handler: unpinplaylist),
    ]

    nonisolated static let hasOffline: Command.Availability = { $0.offline != nil }

    static func downloads(_ call: CommandCall) throws -> OfflineDownloads {
        guard let offline = call.context.offline else { throw ProtocolError(.unknown, "No offline storage") }
        return offline
    }

    static func uri(_ text: String) -> String {
        var uri = text
        while uri.hasPrefix("/") { uri.removeFirst() }
        while uri.hasSuffix("/") { uri.removeLast() }
        return uri
    }

    static func pin(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let offline = try downloads(call)
        let uri = uri(call[0])
        guard let database = call.context.library?.database else { throw ProtocolError(.unknown, "No database") }
        guard !uri.isEmpty else { throw ProtocolError.argument("Pin a cloud account or a folder or song in one, not the whole library") }
        let kind: Pin.Kind
        if database.song(at: uri) != nil {
            kind = .song
        } else if database.directory(at: uri) != nil {
            kind = .folder
        } else {
            throw ProtocolError(.noExist, "No such song or directory")
        }
        guard call.context.songs.location(of: uri).isMounted else {
            throw ProtocolError.argument("\"\(uri)\" is in the local music directory: it is always on disk")
        }
        changed(call, offline.add(Pin(kind: kind, name: uri)))
        return .ok
    }

    static func pinPlaylist(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let offline = try downloads(call)
        guard call.context.playlists?.exists(call[0]) == true else { throw ProtocolError(.noExist, "No such playlist") }
        changed(call, offline.add(Pin(kind: .playlist, name: call[0])))
        return .ok
    }

    /// The pin an optional argument names (a URI, else a playlist), or every pin.
    static func named(_ call: CommandCall, _ offline: OfflineDownloads) throws -> Pin.ID? {
        guard let name = call.arguments.first else { return nil }
        let pins = offline.pins
        let folder = Pin.ID(playlist: false, name: uri(name))
        if pins.contains(where: { $0.id == folder }) { return folder }
        let playlist = Pin.ID(playlist: true, name: name)
        if pins.contains(where: { $0.id == playlist }) { return playlist }
        throw ProtocolError(.noExist, "\"\(name)\" is not pinned")
    }

    static func control(
        _ call: CommandCall, id given: Pin.ID? = nil, _ action: (OfflineDownloads, Pin.ID?) throws(OfflineError) -> Void
    ) throws -> CommandResult {
        let offline = try downloads(call)
        let id = try given ?? named(call, offline)
        do {
            try action(offline, id)
        } catch {
            throw ProtocolError(error.kind == .noSuchPin ? .noExist : .argument, error.message)
        }
        changed(call, true)
        return .ok
    }

    private static func changed(_ call: CommandCall, _ didChange: Bool) {
        guard didChange else { return }
        call.context.syncPins()
        call.context.idle.emit(.offline)
    }

    /// The cache's room: `cache_size`, bytes on disk, bytes of pinned songs, the disk's free
    /// bytes. Sizing every cache file is disk work, answered off the core loop.
    static func cacheStatus(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let offline = try downloads(call)
        return try DeferredAnswer.respond(remote: true, into: &out) {
            let space = offline.space()
            var out = ResponseWriter()
            out.field("cache_size", String(space.budget))
            out.field("cache_used", String(space.used))
            out.field("pinned", String(space.pinned))
            if let free = space.diskFree { out.field("disk_free", String(free)) }
            return out
        }
    }

    static func listPins(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        for report in try downloads(call).pinReports() {
            out.field("pin", report.pin.name)
            out.field("type", report.pin.kind.rawValue)
            out.field("state", report.state.rawValue)
            out.field("songs", report.songs)
            out.field("completed", report.completed)
            out.field("bytes", String(report.bytes))
            out.field("done", String(report.done))
            if report.state == .downloading { out.field("speed", String(report.speed)) }
            if let eta = report.eta, report.state == .downloading { out.field("eta", String(eta)) }
            if report.pin.configured { out.field("configured", 1) }
            if let message = report.message { out.field("message", message) }
        }
        return .ok
    }

    static func pinStatus(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let offline = try downloads(call)
        let reports: [SongReport]
        do {
            reports = try offline.songReports(try named(call, offline))
        } catch let error as OfflineError {
            throw ProtocolError(.noExist, error.message)
        }
        for report in reports {
            out.field("file", report.uri)
            out.field("state", report.state.rawValue)
            out.field("bytes", String(report.bytes))
            out.field("done", String(report.done))
            if report.state == .downloading { out.field("speed", String(report.speed)) }
            if let message = report.message { out.field("message", message) }
            if let retry = report.retryAt { out.field("retry", iso8601: retry) }
        }
        return .ok
    }

    static func pausepin(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try control(call) { offline, id throws(OfflineError) in try offline.setPaused(true, id) }
    }

    static func resumepin(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try control(call) { offline, id throws(OfflineError) in try offline.setPaused(false, id) }
    }

    static func retrypin(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try control(call) { offline, id throws(OfflineError) in try offline.retry(id) }
    }

    static func unpin(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try control(call, id: Pin.ID(playlist: false, name: uri(call[0]))) { offline, id throws(OfflineError) in try offline.remove(id!) }
    }

    static func unpinplaylist(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try control(call, id: Pin.ID(playlist: true, name: call[0])) { offline, id throws(OfflineError) in try offline.remove(id!) }
    }

}
