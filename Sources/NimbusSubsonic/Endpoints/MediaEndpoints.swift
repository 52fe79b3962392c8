import Foundation
import NimbusInput
import NimbusWeb

/// `stream` and `download` send the original file — local, cloud, share or podcast, the
/// latter read through the range cache — with its length and real `Range` support;
/// `getCoverArt` a scaled JPEG. `stream` counts no play (`scrobble` will).
extension SubsonicService {
    enum MediaEndpoints {
        static func stream(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            try SubsonicService.stream(call)
        }

        static func download(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            try original(call)
        }

        static func getCoverArt(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            try coverArt(call)
        }
    }

    /// A cover for any id the API advertises as `coverArt`: the song's or album's picture
    /// (its folder's image, else one in a song), an artist's from the first of their albums
    /// that has one; where none exists, the placeholder picture — an id the server handed
    /// out never answers an error body where a client waits for an image. Unknown ids: 70.
    static func coverArt(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
        let library = call.library
        let id = try call.arguments.required("id")
        let size = try call.arguments.int("size", default: 0, range: 0...4096)
        var candidates: [String]
        if let song = library.song(id) {
            candidates = [song.uri]
        } else if let album = library.album(id) {
            candidates = album.songs.first.map { [library.songs[$0].uri] } ?? []
        } else if let artist = library.artist(id) {
            candidates = artist.albums.compactMap { library.albums[$0].songs.first.map { library.songs[$0].uri } }
        } else {
            throw .notFound("Cover art")
        }
        // An artist of many albums: a few tried, not a scan of every one on each request.
        candidates = Array(candidates.prefix(8))
        let etag = "\"\(id)-\(size)-\(library.updated)\""
        if call.request.headers["if-none-match"] == etag {
            return .http(APIAnswer(status: 304, type: "image/jpeg", headers: [("etag:", etag)], body: .bytes([])))
        }
        let jpeg = candidates.lazy.compactMap { call.backend.cover(call.database, $0, size) }.first ?? call.backend.placeholderCover(size)
        guard !jpeg.isEmpty else { throw .notFound("Cover art") }
        return .http(
            APIAnswer(status: 200, type: "image/jpeg", headers: [("etag:", etag), ("cache-control:", "max-age=86400")], body: .bytes(jpeg)))
    }

    static func original(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
        let library = call.library
        guard let entry = library.song(try call.arguments.required("id")) else { throw .notFound("Song") }
        let input: any NimbusInput.InputStream
        do {
            input = try call.backend.open(entry.uri)
        } catch {
            throw SubsonicError(error, while: "read the song")
        }
        let suffix = ItemNodes.suffix(entry.song.name)
        return try serve(call, input, song: entry.id, name: entry.song.name, type: ItemNodes.contentType(suffix))
    }

    /// Sends a file with its length and real ranges: a song as it is, or a transcode kept
    /// in the cache.
    static func serve(
        _ call: SubsonicCall, _ input: any NimbusInput.InputStream, song: String, name: String, type: String
    ) throws(SubsonicError) -> SubsonicReply {
        guard let length = input.size else { throw SubsonicError(0, "The song's length is not known") }
        var headers: [(String, String)] = [("accept-ranges:", "bytes"), ("cache-control:", "no-cache")]
        var range: Range<Int64> = 0..<length
        var status = 200
        if let header = call.request.headers["range"] {
            guard let asked = byteRange(header, length: length) else {
                return .http(
                    APIAnswer(status: 416, type: "text/plain", headers: [("content-range:", "bytes */\(length)")], body: .bytes([])))
            }
            range = asked
            status = 206
            headers.append(("content-range:", "bytes \(asked.lowerBound)-\(asked.upperBound - 1)/\(length)"))
        }
        if call.request.path.contains("download") {
            let name = name.replacingOccurrences(of: "\"", with: "'")
            headers.append(("content-disposition:", "attachment; filename=\"\(name)\""))
        }
        let stream = APIStream()
        let source = UncheckedInput(input), wanted = range
        let service = call.service, user = call.user?.name ?? "", client = (try? call.arguments.optional("c")) ?? nil
        service.streamers.submit {
            service.whileStreaming(user: user, song: song, client: client) { pump(source.input, range: wanted, into: stream) }
        }
        return .http(APIAnswer(status: status, type: type, headers: headers, body: .stream(stream, length: Int64(range.count))))
    }

    /// Runs `body` with the stream listed in `getNowPlaying`.
    func whileStreaming(user: String, song: String, client: String?, _ body: () -> Void) {
        let number = streamCounter.add(1, ordering: .relaxed).newValue
        streaming.withLock { $0[number] = (user, song, client ?? "", Date()) }
        defer { streaming.withLock { _ = $0.removeValue(forKey: number) } }
        body()
    }

    /// Copies `range` of the input into the stream until done, failed or cancelled.
    /// A local file goes to the socket straight from the page cache (sendfile).
    static func pump(_ input: any NimbusInput.InputStream, range: Range<Int64>, into stream: APIStream) {
        defer { stream.finish() }
        if let fd = input.duplicateFileDescriptor() {
            _ = stream.sendFile(fd: fd, range: range)
            return
        }
        do {
            try input.seek(to: range.lowerBound)
        } catch {
            return
        }
        var remaining = Int64(range.count)
        var buffer = [UInt8](repeating: 0, count: 128 * 1024)
        while remaining > 0, !stream.isCancelled {
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { try input.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<min($0.count, Int(remaining))])) }
            } catch {
                return
            }
            guard count > 0 else { return }
            guard buffer.withUnsafeBytes({ stream.write(UnsafeRawBufferPointer(rebasing: $0[..<count])) }) else { return }
            remaining -= Int64(count)
        }
    }

    /// One `bytes=A-B`, `bytes=A-` or `bytes=-N` range within `length`; nil when unsatisfiable.
    static func byteRange(_ header: String, length: Int64) -> Range<Int64>? {
        guard header.hasPrefix("bytes="), length > 0 else { return nil }
        let spec = header.dropFirst(6).split(separator: ",").first.map(String.init) ?? ""
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let suffix = Int64(parts[1]), suffix > 0 else { return nil }
            return max(0, length - suffix)..<length
        }
        guard let start = Int64(parts[0]), start < length else { return nil }
        let end = parts[1].isEmpty ? length - 1 : min(Int64(parts[1]) ?? -1, length - 1)
        guard end >= start else { return nil }
        return start..<(end + 1)
    }
}

/// An input stream handed to the one worker that reads it (nothing else touches it after).
struct UncheckedInput: @unchecked Sendable {
    let input: any NimbusInput.InputStream
    init(_ input: any NimbusInput.InputStream) { self.input = input }
}
