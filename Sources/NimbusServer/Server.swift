import CLinux
import Glibc
import NimbusCore
import NimbusModel
import NimbusProtocol
import NimbusSupport

/// Accepts connections on every configured address and owns the clients.
@CoreActor
public final class Server {
    public static let greeting = ProtocolVersion.greeting

    public let context: ServerContext
    let table: CommandTable
    let reactor: Reactor
    private var listeners: [ListeningSocket.Bound] = []
    private var clients: [Int32: Client] = [:]

    public init(context: ServerContext, table: CommandTable = .standard, reactor: Reactor = CoreActor.loop.reactor) {
        self.context = context
        self.table = table
        self.reactor = reactor
        context.table = table
        context.partitionInUse = { [unowned self] partition in self.clients.values.contains { $0.partition === partition } }
    }

    public var clientCount: Int { clients.count }
    /// Where it listens, as logged: `127.0.0.1:6600`, `/run/mpd/socket`.
    public var listeningOn: [String] { listeners.map(\.description) }
    public var allClients: some Collection<Client> { clients.values }

    /// Binds every configured address; as in MPD, any address that cannot be bound is fatal.
    /// Sockets systemd passed replace them all; the private runtime socket is added beside them
    /// and its failure is only logged (MPD's `$XDG_RUNTIME_DIR/mpd/socket`).
    public func start(activated: [ListeningSocket.Bound] = []) throws(SystemError) {
        for bound in activated {
            try listen(on: bound)
            context.logger.info("listening on \(bound.description) (socket activation)")
        }
        guard activated.isEmpty else { return }
        var haveRuntimeSocket = false
        if let path = context.settings.runtimeSocket {
            do {
                let bound = try ListeningSocket.openPrivate(path: path)
                try listen(on: bound)
                haveRuntimeSocket = true
                context.logger.info("listening on \(bound.description)")
            } catch {
                context.logger.error("Failed to listen on \"\(path)\" (not fatal): \(error.description)")
            }
        }
        do {
            for address in context.settings.bindAddresses {
                for bound in try ListeningSocket.open(address: address, port: context.settings.port) {
                    try listen(on: bound)
                    context.logger.info("listening on \(bound.description)")
                }
            }
        } catch {
            if haveRuntimeSocket {
                context.logger.error("\(error.description); the default TCP listener failed, but this is okay because we have a $XDG_RUNTIME_DIR listener")
                return
            }
            stop()
            throw error
        }
    }

    private func listen(on bound: ListeningSocket.Bound) throws(SystemError) {
        listeners.append(bound)
        try reactor.watch(fd: bound.fd, interest: .read) { [unowned self] _ in accept(from: bound) }
    }

    /// The port actually bound (useful when configured as 0).
    public var boundTCPPort: Int? {
        for listener in listeners where !listener.isLocal {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let ok = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener.fd, $0, &length) }
            }
            guard ok == 0 else { continue }
            let family = address.ss_family
            return withUnsafePointer(to: &address) { pointer -> Int in
                if family == sa_family_t(AF_INET6) {
                    return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        Int(UInt16(bigEndian: $0.pointee.sin6_port))
                    }
                }
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin_port))
                }
            }
        }
        return nil
    }

    public func stop() {
        for listener in listeners {
            reactor.unwatch(fd: listener.fd)
            close(listener.fd)
            if listener.isLocal && listener.ownsPath && listener.description.hasPrefix("/") { unlink(listener.description) }
        }
        listeners.removeAll()
        for client in Array(clients.values) { client.closeNow() }
    }

    private func accept(from listener: ListeningSocket.Bound) {
        while true {
            let fd = clinux_accept4(listener.fd, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK {
                    context.logger.error(SystemError("accept").description)
                }
                return
            }
            guard clients.count < context.settings.maxConnections else {
                context.logger.error("Max connections reached")
                close(fd)
                continue
            }
            if !listener.isLocal {
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            register(fd: fd, isLocal: listener.isLocal)
        }
    }

    /// Serves one end of a connected socket pair as a network client (`default_permissions`,
    /// counted within `max_connections`): the web page's WebSocket, whose server carries the
    /// bytes of the other end. `peer` names it in the log.
    public func adopt(fd: Int32, peer: String) {
        guard clients.count < context.settings.maxConnections else {
            context.logger.error("Max connections reached")
            close(fd)
            return
        }
        register(fd: fd, isLocal: false, address: peer)
    }

    private func register(fd: Int32, isLocal: Bool, address known: String? = nil) {
        let address = known ?? (isLocal ? ListeningSocket.peerCredentials(of: fd) : ListeningSocket.peerAddress(of: fd))
        let client = Client(fd: fd, isLocal: isLocal, address: address, server: self)
        do {
            // Unwatched when the client closes, which releases this strong capture.
            try reactor.watch(fd: fd, interest: .read) { events in client.handleEvents(events) }
        } catch {
            context.logger.error(error.description)
            close(fd)
            return
        }
        clients[fd] = client
        context.idle.add(client)
        context.channels.register(client.mailbox)
        context.logger.info("[\(address)] client connected")
        client.start(greeting: Self.greeting)
    }

    func remove(_ client: Client) {
        reactor.unwatch(fd: client.fd)
        clients[client.fd] = nil
        context.idle.remove(client)
        context.channels.unregister(client.mailbox)
        context.logger.info("[\(client.address)] disconnected")
    }
}
