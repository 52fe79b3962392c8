import Foundation
import NimbusSupport
import NimbusTranscode
import NimbusWeb

/// `stream` with a format or a bit rate (asked, or the user's default): the song made into
/// Opus, MP3 or AAC on a transcoding worker as the phone reads it. A whole transcode from the
/// start is kept in the cache, so the next play is a file with a length and ranges;
/// `timeOffset` starts the encode where the phone seeked; `estimateContentLength` promises a
/// length and keeps to it exactly (players that need one to seek).
extension SubsonicService {
    static func stream(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
        let backend = call.backend
        guard let entry = call.library.song(try call.arguments.required("id")) else { throw .notFound("Song") }
        let client = try call.arguments.optional("c")
        guard let openDecoder = backend.decoder else { return try original(call) }
        let song = entry.song
        let milliseconds = song.tag.duration ?? 0
        let songKbps = milliseconds > 0 && song.size > 0 ? Int(song.size * 8 / Int64(milliseconds)) : 0
        let request = TranscodeRequest(
            format: try call.arguments.optional("format"), maxKbps: try call.arguments.int("maxBitRate", default: 0, range: 0...10_000),
            client: client, songSuffix: ItemNodes.suffix(song.name), songKbps: songKbps)
        let defaults = call.user.flatMap { backend.userTranscodeDefaults[$0.name] } ?? backend.transcodeDefaults
        let decision: TranscodeDecision
        do {
            decision = try TranscodePlan.decide(request, defaults: defaults)
        } catch {
            throw SubsonicError(0, "The box cannot make format \"\(request.format ?? "")\" (opus, mp3, aac, raw)")
        }
        guard case .transcode(let format, let kbps) = decision else { return try original(call) }
        let offset = try timeOffset(call)
        let key = TranscodeStore.key(uri: entry.uri, version: "\(song.modified)-\(song.size)", format: format, kbps: kbps)
        let name = (song.name as NSString).deletingPathExtension + "." + format.suffix
        if offset == 0, let cached = backend.transcodes?.cached(key, format: format) {
            return try serve(call, cached, song: entry.id, name: name, type: format.contentType)
        }
        let transcoder: Transcoder
        do {
            transcoder = try Transcoder(decoder: try openDecoder(entry.uri), format: format, kbps: kbps, startingAt: offset)
        } catch {
            throw SubsonicError(error, while: "transcode the song")
        }
        let seconds = max(0, Double(milliseconds) / 1000 - offset)
        // An MP3 of known length is promised exactly; other formats an estimate kept to the byte.
        let promised = try call.arguments.bool("estimateContentLength", default: false)
            ? transcoder.exactLength ?? TranscodePlan.estimatedLength(seconds: seconds, kbps: kbps) : nil
        let stream = APIStream()
        let writer = offset == 0 ? backend.transcodes?.begin(key) : nil
        let job = TranscodeJob(transcoder: transcoder, writer: writer, stream: stream, promised: promised)
        let service = call.service, user = call.user?.name ?? ""
        service.transcoders.submit {
            service.whileStreaming(user: user, song: entry.id, client: client) { job.run(logger: service.logger) }
        }
        var headers: [(String, String)] = [("cache-control:", "no-cache"), ("x-content-duration:", String(format: "%.2f", seconds))]
        if call.request.path.contains("download") { headers.append(("content-disposition:", "attachment; filename=\"\(name)\"")) }
        let body: APIAnswer.Body = promised.map { .stream(stream, length: $0) } ?? .chunked(stream)
        return .http(APIAnswer(status: 200, type: format.contentType, headers: headers, body: body))
    }

    /// Seconds into the song (whole or decimal), as Symfonium sends them.
    private static func timeOffset(_ call: SubsonicCall) throws(SubsonicError) -> Double {
        guard let text = try call.arguments.optional("timeOffset"), !text.isEmpty else { return 0 }
        guard let value = Double(text), value.isFinite, value >= 0 else { throw .invalid("timeOffset") }
        return min(value, 86400 * 7)
    }
}

/// One transcode on its worker: the bytes go to the phone and, for a whole song, into the
/// cache file; a promised length is kept exactly (cut, or padded with zeros past the end of
/// the stream, which players skip — never needed for an MP3 whose length was known). The kept
/// file gets the encoder's final header where it differs from what went out first. The phone going away stops the encode at once and
/// keeps nothing.
final class TranscodeJob: @unchecked Sendable {
    // Invariant: created on the request's worker, then touched only by the transcoding worker.
    private let transcoder: Transcoder
    private let writer: TranscodeStore.Writer?
    private let stream: APIStream
    private let promised: Int64?

    init(transcoder: Transcoder, writer: TranscodeStore.Writer?, stream: APIStream, promised: Int64?) {
        self.transcoder = transcoder
        self.writer = writer
        self.stream = stream
        self.promised = promised
    }

    /// What the encoders give is gathered up to this much before it is handed on: one
    /// handover per 4,096 frames (2 KiB of MP3) cost a wake-up of the web thread, a lock
    /// taken against it and two system calls each, 10% of a transcode's CPU. The header goes
    /// at once, so the phone's first byte does not wait.
    static let batchBytes = 16 * 1024

    func run(logger: Logger) {
        defer { stream.finish() }
        var sent: Int64 = 0
        var phoneGone = false
        var batch: [UInt8] = []
        batch.reserveCapacity(Self.batchBytes * 2)
        // To the cache file, and within a promised length to the phone; false: stop.
        func handOn() -> Bool {
            defer { batch.removeAll(keepingCapacity: true) }
            return batch.withUnsafeBytes { bytes in
                writer?.append(bytes)
                var piece = bytes
                if let promised {
                    let room = Int(max(0, promised - sent))
                    piece = UnsafeRawBufferPointer(rebasing: bytes[..<min(room, bytes.count)])
                    // Past the promised length the encode goes on only for the cache file.
                    if piece.isEmpty { return writer != nil && !stream.isCancelled }
                }
                sent += Int64(piece.count)
                phoneGone = !stream.write(piece)
                return !phoneGone
            }
        }
        let finished: Bool
        do {
            // The first bytes (the header) go alone, then batches.
            var firstSent = false
            finished = try transcoder.run { bytes in
                batch.append(contentsOf: bytes)
                guard batch.count >= (firstSent ? Self.batchBytes : 1) else { return !stream.isCancelled }
                firstSent = true
                return handOn()
            }
            // The end of the song: whatever was gathered (the cache file gets it even if the
            // phone has just gone, so the whole transcode is kept).
            if finished, !batch.isEmpty { _ = handOn() }
        } catch {
            logger.error("transcode: \(error.description)")
            writer?.abandon()
            return
        }
        if finished {
            if let header = transcoder.finalHeader { writer?.overwrite(header, at: 0) }
            writer?.commit()
        } else {
            writer?.abandon()
        }
        guard !phoneGone, let promised, sent < promised else { return }
        let zeros = [UInt8](repeating: 0, count: 64 * 1024)
        while sent < promised {
            let count = Int(min(Int64(zeros.count), promised - sent))
            guard zeros.withUnsafeBytes({ stream.write(UnsafeRawBufferPointer(rebasing: $0[..<count])) }) else { return }
            sent += Int64(count)
        }
    }
}
