import CWebSockets
import Foundation
import Glibc
import NimbusSupport
import Synchronization

/// The web page's server: libwebsockets serves the page's files over HTTP and carries MPD
/// protocol lines over a WebSocket (`/`, subprotocol `mpd`) on a thread of its own. Each
/// WebSocket is one MPD session of the daemon's own server, reached through a socket pair
/// (`connect` hands the daemon its end), so the page goes through the same command table,
/// permissions, `password`, idle events and `max_connections` as any TCP client: there is no
/// second implementation of a command here, only bytes carried both ways.
public final class WebServer: Sendable {
    public struct Settings: Sendable {
        /// Addresses to listen on (`any`: every address).
        public var addresses: [String]
        public var port: Int
        public var hosts: HostCheck
        /// The largest message a page may send (MPD's request lines are at most 8 KiB).
        public var maximumMessage = 64 * 1024
        /// The httpd outputs' ports by output name, for "Listen here": MPD's protocol does not
        /// tell a client where an httpd output streams, so the page reads `/about.json`.
        public var streams: [String: Int] = [:]
        /// The daemon's version, for the Settings page (the protocol tells only its own).
        public var version = ""
        /// What answers `/rest/` (the Subsonic API); nil: 404 there.
        public var api: APIHandler?
        /// Only `/rest/`: the API on a port of its own, without the page or its WebSockets.
        public var apiOnly = false

        public init(addresses: [String], port: Int, hosts: HostCheck) {
            self.addresses = addresses
            self.port = port
            self.hosts = hosts
        }
    }

    let settings: Settings
    let assets: WebAssets
    let logger: Logger
    /// A new MPD session for a page at `peer`: the page's end of a connected socket pair.
    let connect: @Sendable (_ peer: String) -> Int32?
    /// Covers for `/cover`; nil answers 404.
    let covers: CoverSource?
    let coverInbox = WakeInbox<CoverAnswer>()
    /// Answers and stream progress of `/rest/` requests, from the API's threads.
    let apiInbox = WakeInbox<APIEvent>()
    /// The service thread's state (libwebsockets calls back on that thread only).
    let loop: ServiceLoop
    private let stopped = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)
    /// `http://ADDRESS:PORT/` for each address it listens on.
    public let listeningOn: [String]

    /// Listens, or throws when no address could be bound.
    public init(
        settings: Settings, assets: WebAssets = .standard, logger: Logger, covers: CoverSource? = nil,
        connect: @escaping @Sendable (_ peer: String) -> Int32?
    ) throws(SystemError) {
        self.settings = settings
        self.assets = assets
        self.logger = logger
        self.connect = connect
        self.covers = covers
        loop = ServiceLoop()
        lws_set_log_level(0, nil)
        var info = lws_context_creation_info()
        info.options = UInt64(LWS_SERVER_OPTION_EXPLICIT_VHOSTS) | UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8)
        info.port = -1
        info.gid = -1
        info.uid = -1
        info.max_http_header_data = 8192
        info.pt_serv_buf_size = 16 * 1024
        info.fd_limit_per_thread = 512
        info.timeout_secs = 20
        info.ka_time = 0
        info.user = Unmanaged.passUnretained(loop).toOpaque()
        guard let context = lws_create_context(&info) else { throw SystemError("libwebsockets context", code: ENOMEM) }
        loop.context = context
        // One vhost that listens nowhere itself: libwebsockets' own listener binds the IPv6
        // wildcard whatever `iface` says, so the sockets are bound here, exactly as the MPD
        // port's are, and each accepted connection is handed to the vhost.
        var vhostInfo = lws_context_creation_info()
        vhostInfo.port = CONTEXT_PORT_NO_LISTEN_SERVER
        vhostInfo.protocols = UnsafePointer(loop.protocols)
        vhostInfo.options = info.options
        vhostInfo.keepalive_timeout = 20
        let name = strdup("nimbus")
        loop.keep.append(name)
        vhostInfo.vhost_name = UnsafePointer(name)
        guard let vhost = lws_create_vhost(context, &vhostInfo) else {
            lws_context_destroy(context)
            loop.context = nil
            throw SystemError("libwebsockets vhost", code: ENOMEM)
        }
        loop.vhost = vhost
        var bound: [String] = []
        for address in settings.addresses {
            do {
                for socket in try ListeningSocket.open(address: address, port: settings.port) {
                    // On failure libwebsockets has closed the socket.
                    guard nimbus_lws_adopt_listener(vhost, socket.fd, "listen") != nil else {
                        logger.error("cannot listen on \(socket.description)")
                        continue
                    }
                    bound.append("http://\(socket.description)/")
                }
            } catch {
                logger.error("cannot listen on \(address):\(settings.port): \(error.description)")
            }
        }
        listeningOn = bound
        guard !bound.isEmpty else {
            lws_context_destroy(context)
            loop.context = nil
            throw SystemError("web page: no address to listen on", code: EADDRINUSE)
        }
        loop.server = Unmanaged.passUnretained(self).toOpaque()
        coverInbox.open(context)
        apiInbox.open(context)
        DaemonThread.start(name: "web") { [self] in serve() }
    }

    private func serve() {
        guard let context = loop.context else { return }
        while !stopped.load(ordering: .acquiring) {
            if lws_service(context, 0) < 0 { break }
            reapHungUpStreams()
        }
        coverInbox.close()
        apiInbox.close()
        cancelStreams()
        loop.server = nil
        lws_context_destroy(context)
        loop.context = nil
        finished.signal()
    }

    /// Closes every connection and stops the thread; returns once it has.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing), let context = loop.context else { return }
        lws_cancel_service(context)
        finished.wait()
    }
}

/// What libwebsockets' callbacks work on: the connections and their buffers. Touched only on
/// the web thread (libwebsockets calls back there and nowhere else), hence unchecked.
final class ServiceLoop: @unchecked Sendable {
    var context: OpaquePointer?
    /// The one vhost every accepted connection is adopted into.
    var vhost: OpaquePointer?
    /// The server, for the C callback (which has no other way back to it).
    var server: UnsafeMutableRawPointer?
    let protocols: UnsafeMutablePointer<lws_protocols>
    /// C strings that must outlive the context.
    var keep: [UnsafeMutablePointer<CChar>?] = []
    /// What each connection is doing (`WebConnection`).
    var connections = Connections()
    /// When the streams were last looked at for a hang-up (uptime nanoseconds).
    var lastHangUpCheck: UInt64 = 0
    var nextToken: UInt64 = 0

    init() {
        protocols = .allocate(capacity: 5)
        var names: [UnsafeMutablePointer<CChar>?] = []
        for name in ["http", "mpd", "mpd-raw", "listen"] { names.append(strdup(name)) }
        keep += names
        for (index, name) in names.enumerated() {
            var entry = lws_protocols()
            entry.name = UnsafePointer(name)
            entry.callback = nimbusWebCallback
            entry.rx_buffer_size = index == 1 ? 16 * 1024 : 0
            entry.id = UInt32(index)
            (protocols + index).initialize(to: entry)
        }
        (protocols + 4).initialize(to: lws_protocols())
    }

    deinit {
        protocols.deinitialize(count: 5)
        protocols.deallocate()
        for pointer in keep { free(pointer) }
    }
}

/// One HTTP answer being written: the bytes and how far they went.
struct HTTPResponse {
    var body: [UInt8]
    var sent = 0
}

/// One page's MPD session: the WebSocket and the raw socket to the daemon, with the bytes
/// on their way each direction.
final class WebSession {
    let socket: OpaquePointer
    var raw: OpaquePointer?
    /// From the page, not yet written to the daemon.
    var toDaemon: [UInt8] = []
    /// A message arriving in fragments.
    var incoming: [UInt8] = []
    /// From the daemon, not yet sent to the page.
    var toPage: [UInt8] = []
    /// Reading from the daemon is paused: the page reads slower than the daemon answers.
    var throttled = false
    /// The daemon ended the session: the page's socket closes once `toPage` is out.
    var daemonClosed = false

    init(socket: OpaquePointer) { self.socket = socket }
}

/// A NUL-terminated C string in a buffer, as text.
func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

func key(_ wsi: OpaquePointer?) -> UInt { UInt(bitPattern: wsi.map { Int(bitPattern: UnsafeRawPointer($0)) } ?? 0) }

/// libwebsockets' one callback, for every protocol: back to the server of the connection's context.
func nimbusWebCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?, _ input: UnsafeMutableRawPointer?,
    _ length: Int
) -> Int32 {
    guard let wsi, let raw = lws_context_user(lws_get_context(wsi)) else { return 0 }
    let loop = Unmanaged<ServiceLoop>.fromOpaque(raw).takeUnretainedValue()
    guard let pointer = loop.server else { return 0 }
    let server = Unmanaged<WebServer>.fromOpaque(pointer).takeUnretainedValue()
    return server.handle(wsi, reason, input, length)
}
