import CWebSockets
import Synchronization

/// A cover the page asks for: `/cover?uri=SONG_OR_FOLDER&size=N`, or
/// `/cover?album=NAME&artist=ALBUMARTIST&size=N` for a tile of the album grid.
public struct CoverRequest: Sendable, Hashable {
    public var uri: String?
    public var album: String?
    public var artist: String?
    /// The longer side in pixels the page shows it at (device pixels).
    public var size: Int

    public init(uri: String, size: Int) {
        self.uri = uri
        self.size = size
    }

    /// The request's query string, or nil when it names nothing.
    init?(arguments: [String: String]) {
        uri = arguments["uri"]
        album = arguments["album"]
        artist = arguments["artist"]
        size = Int(arguments["size"] ?? "") ?? 256
        guard uri != nil || album != nil, (1...4096).contains(size) else { return nil }
    }

    public init(uri: String? = nil, album: String? = nil, artist: String? = nil, size: Int) {
        self.uri = uri
        self.album = album
        self.artist = artist
        self.size = size
    }
}

/// Where covers come from: called on the web thread, answers (JPEG bytes, or nil for none)
/// from any thread, later. Reading a cloud song's picture waits on the network, so the web
/// thread never waits for it.
public typealias CoverSource = @Sendable (CoverRequest, @escaping @Sendable (_ jpeg: [UInt8]?) -> Void) -> Void

/// A cover request waiting for its answer; the token tells it from a later request on a
/// connection libwebsockets reused.
struct PendingCover {
    let token: UInt64
    let ifNoneMatch: String?
}

/// A cover answered on another thread, for the web thread to send.
struct CoverAnswer: Sendable {
    let connection: UInt
    let token: UInt64
    let jpeg: [UInt8]?
}

extension WebServer {
    /// `/cover`: asks the cover source and answers when it does; a query that names nothing
    /// is a 400.
    func coverRequest(_ wsi: OpaquePointer) -> Int32 {
        guard let request = CoverRequest(arguments: queryArguments(wsi)) else { return status(wsi, 400, "Name a song, folder or album") }
        guard let source = covers else {
            return respond(wsi, code: 200, type: "image/svg+xml", body: Self.noCover, headers: [("cache-control:", "max-age=300")])
        }
        loop.nextToken += 1
        let token = loop.nextToken, connection = key(wsi), inbox = coverInbox
        loop.connections[connection] = .waitingForCover(PendingCover(token: token, ifNoneMatch: header(wsi, WSI_TOKEN_HTTP_IF_NONE_MATCH)))
        source(request) { jpeg in inbox.post(CoverAnswer(connection: connection, token: token, jpeg: jpeg)) }
        return 0
    }

    static let noCover = Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>"#.utf8)

    /// Sends the covers that came in, to connections still waiting for them.
    func sendCovers() {
        for answer in coverInbox.take() {
            guard let pending = loop.connections.cover(answer.connection), pending.token == answer.token,
                let wsi = OpaquePointer(bitPattern: answer.connection)
            else { continue }
            loop.connections.forget(answer.connection)
            guard let jpeg = answer.jpeg else {
                // Not a 404: a browser reports every failed image as an error, and an album
                // without a cover is no error. One transparent pixel says "none" (the page
                // tells it by its width) and is asked again after a while.
                _ = respond(wsi, code: 200, type: "image/svg+xml", body: Self.noCover, headers: [("cache-control:", "max-age=300")])
                continue
            }
            let etag = "\"c\(WebAssets.fnv(jpeg))\""
            let notModified = pending.ifNoneMatch == etag
            // The page puts the library's update time in the address, so a changed cover has a
            // new address and this one can be kept.
            let headers = [("etag:", etag), ("cache-control:", "max-age=604800"), ("x-content-type-options:", "nosniff")]
            _ = respond(wsi, code: notModified ? 304 : 200, type: "image/jpeg", body: notModified ? [] : jpeg, headers: headers)
        }
    }

    /// The query string's arguments, decoded (libwebsockets splits and decodes them).
    func queryArguments(_ wsi: OpaquePointer) -> [String: String] {
        var arguments: [String: String] = [:]
        var index: Int32 = 0
        var buffer = [CChar](repeating: 0, count: 2048)
        while index < 8, lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, index) >= 0 {
            let fragment = text(buffer)
            if let equals = fragment.firstIndex(of: "=") {
                arguments[String(fragment[..<equals])] = String(fragment[fragment.index(after: equals)...])
            }
            index += 1
        }
        return arguments
    }
}
