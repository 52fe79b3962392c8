import NimbusModel
import NimbusProtocol
import NimbusSources
import NimbusSupport

/// getfingerprint: a song's Chromaprint fingerprint (MPD built with libchromaprint). Decoding
/// two minutes of audio always runs off the core loop.
@CoreActor
enum FingerprintCommands {
    nonisolated static let all: [Command] = [
        Command("getfingerprint", .read, arguments: 1...1, handler: fingerprint)
    ]

    /// As MPD: a relative URI names a file in the music directory whether or not the
    /// database has it yet; a URL is fetched; a path only for local clients.
    static func fingerprint(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let songs = call.context.songs
        let song: Song
        switch try URILocation.locate(call[0], call, allowEmpty: false) {
        case .relative(let uri):
            guard call.context.library != nil else { throw ProtocolError(.noExist, "No database") }
            song = Song(uri: uri)
        case .url(let url):
            guard let remote = songs.remoteSong(url) else { throw ProtocolError.argument("Unsupported URI scheme") }
            song = remote
        case .file(let path):
            song = Song(uri: path)
        }
        return .offLoop {
            var out = ResponseWriter()
            out.field("chromaprint", try songs.fingerprint(of: song))
            return out
        }
    }
}
