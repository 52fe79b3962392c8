import NimbusAnalysis
import NimbusModel
import NimbusProtocol
import NimbusSupport

/// Nimbus's own loudness commands (MPD computes none): `loudness URI` answers a song's EBU
/// R128 measurement and the ReplayGain values that follow from it; `analyze [URI]` measures a
/// song, folder or mount (cloud included, explicitly) before anything else waiting;
/// `analysisstatus` reports the pass. Progress raises the opt-in `analysis` idle event.
@CoreActor
enum AnalysisCommands {
    nonisolated static let all: [Command] = [
        Command("analysisstatus", .read, arguments: 0...0, available: hasAnalysis, handler: status),
        Command("analyze", .control, arguments: 0...1, available: hasAnalysis, handler: analyze),
        Command("loudness", .read, arguments: 1...1, available: hasAnalysis, handler: loudness),
    ]

    nonisolated static let hasAnalysis: Command.Availability = { $0.analysis != nil }

    static func pass(_ call: CommandCall) throws -> AnalysisPass {
        guard let pass = call.context.analysis else { throw ProtocolError(.unknown, "Loudness analysis is off") }
        return pass
    }

    static func loudness(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let pass = try pass(call)
        let uri = OfflineCommands.uri(call[0])
        guard let song = call.context.library?.database.song(at: uri) else { throw ProtocolError(.noExist, "No such song") }
        guard let measured = pass.store.loudness(of: uri, modified: song.lastModified ?? 0) else {
            if song.target != nil { throw ProtocolError(.noExist, "A CUE track is measured as part of its image, which is not measured yet") }
            let status = pass.status
            throw ProtocolError(.noExist, status.state == .paused ? "Not measured yet: the analysis is paused" : "Not measured yet")
        }
        write(measured, to: &out)
        return .ok
    }

    static func write(_ measured: SongLoudness, to out: inout ResponseWriter) {
        func decibels(_ value: Double) -> String { String(format: "%.2f", value) }
        func linear(_ value: Double) -> String { String(format: "%.6f", value) }
        let track = measured.track
        out.field("integrated", track.integrated.map(decibels) ?? "-inf")
        out.field("range", decibels(track.range))
        out.field("track_gain", decibels(track.gain))
        out.field("track_peak", linear(track.peak))
        out.field("sample_peak", linear(track.samplePeak))
        if let album = measured.album {
            out.field("album_integrated", album.integrated.map(decibels) ?? "-inf")
            out.field("album_gain", decibels(album.gain))
            out.field("album_peak", linear(album.peak))
        }
    }

    static func analyze(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let pass = try pass(call)
        guard let database = call.context.library?.database else { throw ProtocolError(.noExist, "No database") }
        let uri = OfflineCommands.uri(call.arguments.first ?? "")
        guard uri.isEmpty || database.song(at: uri) != nil || database.directory(at: uri) != nil else {
            throw ProtocolError(.noExist, "No such song or directory")
        }
        // Named explicitly, a cloud folder is measured too; the whole library stays local.
        let albums = AnalysisJobs.albums(
            in: database, below: uri, sources: call.context.songs, store: pass.store, mounted: !uri.isEmpty, everything: !uri.isEmpty)
        pass.submit(albums, first: true)
        pass.resume()
        out.field("songs", String(albums.reduce(0) { $0 + $1.count }))
        return .ok
    }

    static func status(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let status = try pass(call).status
        out.field("state", status.state.rawValue)
        out.field("songs", String(status.songs))
        out.field("measured", String(status.measured))
        out.field("pending", String(status.pending))
        out.field("failed", String(status.failed))
        out.field("rate", String(format: "%.1f", status.rate))
        return .ok
    }
}
