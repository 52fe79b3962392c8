/// What one libwebsockets connection is doing — exactly one thing at a time, so a connection
/// can never hold a stream and a half-written answer at once, and closing it forgets all of
/// it in one place (`Connections.forget`). Touched only on the web thread.
enum WebConnection {
    /// An `/rest/` POST whose form body is still arriving.
    case receivingBody(PendingAPI)
    /// A request handed to the API's workers; the token tells its answer from a stale one.
    case waitingForAnswer(token: UInt64)
    /// `/cover` asked of the cover source.
    case waitingForCover(PendingCover)
    /// A whole answer whose body goes out as the socket takes it.
    case answering(HTTPResponse)
    /// A streamed answer (a song, a transcode, a file by sendfile).
    case streaming(APIStreaming)
    /// The page's WebSocket or the raw socket to the daemon behind it: the session is
    /// reachable from both connections.
    case session(WebSession)
}

/// Every connection's state by its `wsi`, with the count of streams kept (the hang-up check
/// runs after every turn of the loop and must cost nothing when no stream is open).
struct Connections {
    private var states: [UInt: WebConnection] = [:]
    private(set) var streamCount = 0

    subscript(_ connection: UInt) -> WebConnection? {
        get { states[connection] }
        set {
            if case .streaming = states[connection] { streamCount -= 1 }
            if case .streaming = newValue { streamCount += 1 }
            states[connection] = newValue
        }
    }

    /// Drops what the connection was doing; a stream's worker is told to stop.
    @discardableResult
    mutating func forget(_ connection: UInt) -> WebConnection? {
        let old = states[connection]
        self[connection] = nil
        if case .streaming(let streaming) = old { streaming.stream.cancel() }
        return old
    }

    func pending(_ connection: UInt) -> PendingAPI? {
        if case .receivingBody(let pending) = states[connection] { return pending }
        return nil
    }

    func answerToken(_ connection: UInt) -> UInt64? {
        if case .waitingForAnswer(let token) = states[connection] { return token }
        return nil
    }

    func cover(_ connection: UInt) -> PendingCover? {
        if case .waitingForCover(let pending) = states[connection] { return pending }
        return nil
    }

    func response(_ connection: UInt) -> HTTPResponse? {
        if case .answering(let response) = states[connection] { return response }
        return nil
    }

    func stream(_ connection: UInt) -> APIStreaming? {
        if case .streaming(let streaming) = states[connection] { return streaming }
        return nil
    }

    func session(_ connection: UInt) -> WebSession? {
        if case .session(let session) = states[connection] { return session }
        return nil
    }

    /// The connections with a stream open.
    var streaming: [UInt] { streamCount == 0 ? [] : states.compactMap { if case .streaming = $1 { $0 } else { nil } } }

    /// Every stream stopped (the server is going away).
    mutating func cancelStreams() {
        for connection in streaming { forget(connection) }
    }
}
