import Foundation
import NimbusCore
import NimbusModel
import NimbusServer
import NimbusStickers
import NimbusSupport

/// Resume positions in the sticker database: `elapsed` (whole seconds, as myMPD writes and
/// reads it) while a long song is part-heard, `played` (UNIX time) once it was heard to the
/// end. SQLite's journal keeps the previous value whole if a write is torn by a kill -9.
@CoreActor
final class StickerResume: ResumeStore {
    private let context: ServerContext
    private let logger: Logger
    /// A song was heard to its end (a podcast episode may then leave the cache).
    var onFinished: @CoreActor (String) -> Void = { _ in }

    init(context: ServerContext, logger: Logger) {
        self.context = context
        self.logger = logger
    }

    /// Any client may write the sticker: a value that is not a sane number of seconds (NaN,
    /// inf, 1e300) is no position rather than a trap.
    func position(of uri: String) -> Int? {
        guard let stickers = context.stickers else { return nil }
        return SongStickers.resumeMilliseconds((try? stickers.get(type: "song", uri: uri, name: SongStickers.resume)) ?? nil)
    }

    func keep(_ milliseconds: Int, of uri: String, announce: Bool) {
        guard let stickers = context.stickers else { return }
        do {
            try stickers.set(type: "song", uri: uri, name: SongStickers.resume, value: SongStickers.resumeValue(milliseconds: milliseconds))
            if announce { context.idle.emit(.sticker) }
        } catch {
            logger.warning("cannot keep the position of \(uri): \(error.message)")
        }
    }

    func finished(_ uri: String) {
        guard let stickers = context.stickers else { return }
        do {
            _ = try stickers.delete(type: "song", uri: uri, name: SongStickers.resume)
            try stickers.set(type: "song", uri: uri, name: SongStickers.played, value: String(Int(Date().timeIntervalSince1970)))
            context.idle.emit(.sticker)
            onFinished(uri)
        } catch {
            logger.warning("cannot mark \(uri) as played: \(error.message)")
        }
    }
}
