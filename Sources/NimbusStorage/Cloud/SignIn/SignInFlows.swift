import Foundation
import NimbusSupport
import Synchronization

/// What a person must do to finish a sign-in, as `signin` answers it. Nothing in it is a
/// secret: a user code is useless without the device code the box keeps.
public struct SignInPrompt: Sendable, Equatable {
    /// `device`, `code`, `password` or `browser` (SignInMethod.name).
    public var method: String
    public var userCode: String?
    public var verificationURL: String?
    public var authorizeURL: String?
    /// Where the provider sends the browser with the code (a loopback address): the client
    /// that gave it listens there; anyone else pastes the address the browser shows.
    public var redirectURI: String?
    /// Seconds left to finish it.
    public var expiresIn: Int?
    /// An SSH server's host key (`SHA256:…`): the person compares it with the server's own;
    /// the `signinpassword` that follows trusts it.
    public var fingerprint: String?
    /// Whether that key is already in the account's known_hosts.
    public var hostKeyKnown = false
}

/// Where an account's latest sign-in stands (`listaccounts` shows it as `signin:`).
public enum SignInProgress: Sendable, Equatable {
    case waiting(SignInPrompt)
    case signedIn
    case expired
    case declined
    case cancelled
    case failed(String)
}

/// Everything a flow needs about its account, gathered on the core loop.
public struct SignInRequest: Sendable {
    public let account: String
    public let method: SignInMethod
    public let settings: [String: String]
    /// Where the result is saved (the account's token, password or login file).
    public let secretFile: String
    let plugin: any CloudProviderPlugin
    /// A client's own loopback address for a provider that sends the browser back (the CLI's).
    public var redirect: String?
}

/// The sign-ins the daemon runs for its accounts, one flow per account at a time (a second
/// `signin` replaces the first). A device code or a Nextcloud login is polled by a thread of
/// its own at the provider's interval until the person answers, the code expires or the flow
/// is cancelled; an authorization code waits for `complete`. What a flow produced is saved
/// 0600 and atomically where the account reads it, then `changed` is called (on the flow's
/// thread) so the daemon mounts the account and tells clients.
public final class SignInFlows: Sendable {
    private final class Flow: Sendable {
        let request: SignInRequest
        let code: CodeSignIn?
        /// The host key `signin` showed (SFTP): the password that follows trusts it.
        var fingerprint: String? { prompt.withLock { $0 } }
        let prompt = Mutex<String?>(nil)
        /// Set to cancel; the polling thread waits on it between polls.
        let stopped = Mutex(false)
        let wakeup = NSCondition()

        init(_ request: SignInRequest, code: CodeSignIn?) {
            self.request = request
            self.code = code
        }

        /// Sleeps `seconds` unless cancelled meanwhile; false when cancelled.
        func wait(_ seconds: Double) -> Bool {
            let deadline = Date(timeIntervalSinceNow: seconds)
            wakeup.lock()
            defer { wakeup.unlock() }
            while !stopped.withLock({ $0 }), wakeup.wait(until: deadline) {}
            return !stopped.withLock { $0 }
        }

        func cancel() {
            stopped.withLock { $0 = true }
            wakeup.lock()
            wakeup.broadcast()
            wakeup.unlock()
        }
    }

    private struct State: Sendable {
        var flows: [String: Flow] = [:]
        var progress: [String: SignInProgress] = [:]
    }

    private let state = Mutex(State())
    private let logger: Logger
    private let changed: @Sendable (String) -> Void

    public init(logger: Logger, changed: @escaping @Sendable (String) -> Void) {
        self.logger = logger
        self.changed = changed
    }

    public func progress(_ account: String) -> SignInProgress? { state.withLock { $0.progress[account] } }

    /// Starts the account's flow (cancelling one already running) and says what the person
    /// must do. Blocks for the provider's first answer (a device code, a login address).
    public func start(_ request: SignInRequest) throws(SignInError) -> SignInPrompt {
        cancel(request.account, quietly: true)
        let settings = request.settings
        switch request.method {
        case .none:
            throw .failed("\(request.account) needs no sign-in")
        case .password:
            var prompt = SignInPrompt(method: "password")
            do throws(StorageError) {
                if let key = try request.plugin.hostKey(settings) {
                    prompt.fingerprint = key.fingerprint
                    prompt.hostKeyKnown = key.known
                }
            } catch {
                throw .failed("\(request.account): \(error.message)")
            }
            let flow = Flow(request, code: nil)
            flow.prompt.withLock { $0 = prompt.fingerprint }
            return begin(flow, prompt)
        case .deviceCode(let endpoints):
            let clientID = try Self.clientID(request)
            let device = DeviceCodeSignIn(endpoints: endpoints, clientID: clientID, clientSecret: settings["client_secret"])
            let authorization = try device.start()
            guard SignInText.isPrintable(authorization.userCode), authorization.userCode.utf8.count <= 64,
                LoginFlowSignIn.isWeb(authorization.verificationURL)
            else { throw .failed("The provider's device code answer is unusable (a user code or address that cannot be shown).") }
            let expiresIn = min(max(authorization.expiresIn, 1), 3600)
            let prompt = SignInPrompt(
                method: "device", userCode: authorization.userCode, verificationURL: authorization.verificationURL, expiresIn: Int(expiresIn))
            let flow = Flow(request, code: nil)
            return begin(flow, prompt) { () throws(SignInError) -> [UInt8] in
                var limited = authorization
                limited.expiresIn = expiresIn
                limited.interval = min(max(authorization.interval, 1), 60)
                return try device.token(for: limited, wait: flow.wait).json
            }
        case .authorizationCode(let endpoints):
            let code = CodeSignIn(endpoints: endpoints, clientID: try Self.clientID(request), clientSecret: settings["client_secret"])
            // Dropbox shows the code instead: a redirect would have to be registered with the app.
            let redirect = endpoints.usesLoopback ? request.redirect ?? "http://127.0.0.1/" : nil
            var kept = request
            kept.redirect = redirect
            let prompt = SignInPrompt(
                method: "code", authorizeURL: code.authorizationURL(redirectURI: redirect), redirectURI: redirect, expiresIn: 600)
            return begin(Flow(kept, code: code), prompt)
        case .browser(let endpoints):
            let login = LoginFlowSignIn(endpoints: endpoints)
            let authorization = try login.start()
            let flow = Flow(request, code: nil)
            let prompt = SignInPrompt(method: "browser", verificationURL: authorization.loginURL, expiresIn: Int(endpoints.expiresIn))
            return begin(flow, prompt) { () throws(SignInError) -> [UInt8] in
                let result = try login.login(for: authorization, wait: flow.wait)
                return Array((try? JSONEncoder().encode(result)) ?? Data())
            }
        }
    }

    /// The person's answer to a `code` flow: the code, or the whole address the browser was
    /// sent to. Blocks for the exchange; saves the token.
    public func complete(_ account: String, pasted: String) throws(SignInError) {
        guard let flow = state.withLock({ $0.flows[account] }), let code = flow.code else {
            throw .failed("No sign-in with a code is waiting for \(account); start one with signin")
        }
        do {
            let tokens = try code.exchange(code: try code.code(fromPasted: pasted), redirectURI: flow.request.redirect)
            try finish(flow, tokens.json)
        } catch {
            end(flow, error)
            throw error
        }
    }

    /// The person's password for a `password` flow (or without a flow: typed at once).
    /// Blocks for one request: a password the server refuses is not saved.
    public func password(_ request: SignInRequest, _ password: String) throws(SignInError) {
        guard case .password = request.method else { throw .failed("\(request.account) does not sign in with a password") }
        guard !password.isEmpty, !password.contains("\n"), password.utf8.count <= 4096 else {
            throw .failed("A password is one line of at most 4096 bytes")
        }
        let shown = state.withLock { $0.flows[request.account]?.fingerprint }
        cancel(request.account, quietly: true)
        let flow = Flow(request, code: nil)
        var settings = request.settings
        if settings["fingerprint"] == nil, let shown { settings["fingerprint"] = shown }
        do throws(StorageError) {
            try request.plugin.verify(password: password, settings)
        } catch {
            let message = error.message.hasPrefix(request.account) ? error.message : "\(request.account): \(error.message)"
            let failure: SignInError = error.kind == .permission ? .refused(message) : .failed(message)
            end(flow, failure)
            throw failure
        }
        try finish(flow, Array((password + "\n").utf8))
    }

    /// Stops the account's flow; `quietly` when a new one replaces it.
    public func cancel(_ account: String, quietly: Bool = false) {
        let flow = state.withLock { state -> Flow? in
            let flow = state.flows.removeValue(forKey: account)
            if flow != nil, !quietly { state.progress[account] = .cancelled }
            return flow
        }
        flow?.cancel()
        if flow != nil, !quietly { changed(account) }
    }

    /// Forgets the account (removed, or signed out): its flow stops, its state goes.
    public func forget(_ account: String) {
        let flow = state.withLock { state -> Flow? in
            state.progress[account] = nil
            return state.flows.removeValue(forKey: account)
        }
        flow?.cancel()
    }

    private static func clientID(_ request: SignInRequest) throws(SignInError) -> String {
        guard let clientID = request.settings["client_id"], !clientID.isEmpty else {
            throw .failed("\(request.account) has no client_id; register an app with the provider (README, Connect your cloud) and add it")
        }
        return clientID
    }

    /// Records the flow as the account's; `poll`, if any, runs on a thread of its own and gives
    /// the bytes to save.
    private func begin(_ flow: Flow, _ prompt: SignInPrompt, poll: (@Sendable () throws(SignInError) -> [UInt8])? = nil) -> SignInPrompt {
        let account = flow.request.account
        state.withLock { state in
            state.flows[account] = flow
            state.progress[account] = .waiting(prompt)
        }
        logger.info("\(account): sign-in started (\(prompt.method))")
        if let poll {
            DaemonThread.start(name: "signin-" + account) { [self] in
                do throws(SignInError) {
                    try finish(flow, try poll())
                } catch {
                    end(flow, error)
                }
            }
        }
        return prompt
    }

    private func isCurrent(_ flow: Flow) -> Bool { state.withLock { $0.flows[flow.request.account] === flow } }

    private func finish(_ flow: Flow, _ secret: [UInt8]) throws(SignInError) {
        let account = flow.request.account
        guard isCurrent(flow) || flow.code == nil && !flow.stopped.withLock({ $0 }) else { throw .cancelled }
        try SecretFile.write(secret, to: flow.request.secretFile)
        state.withLock { state in
            if state.flows[account] === flow { state.flows[account] = nil }
            state.progress[account] = .signedIn
        }
        logger.notice("\(account): signed in")
        changed(account)
    }

    private func end(_ flow: Flow, _ error: SignInError) {
        let account = flow.request.account
        let ended = state.withLock { state -> Bool in
            guard state.flows[account] === flow || state.flows[account] == nil && error != .cancelled else { return false }
            state.flows[account] = nil
            switch error {
            case .expired: state.progress[account] = .expired
            case .denied: state.progress[account] = .declined
            case .cancelled: state.progress[account] = .cancelled
            default: state.progress[account] = .failed(error.description)
            }
            return true
        }
        guard ended else { return }
        logger.warning("\(account): sign-in ended: \(error.description)")
        changed(account)
    }
}
