import NimbusProtocol
import NimbusStorage
import NimbusSupport

/// Nimbus's own cloud-account commands (MPD has no place for them): what any client — the
/// `nimbus` CLI on a laptop, the web page, a raw session — needs to add an account, have the
/// daemon run its sign-in and show the person what to do. Admin, as `config` is; answers
/// never hold a token, a password or a code the person did not see already.
@CoreActor
enum AccountCommands {
    nonisolated static let hasAccounts: Command.Availability = { $0.accounts != nil }
    nonisolated static let all: [Command] = [
        Command("accounttypes", .admin, arguments: 0...0, available: hasAccounts, handler: accountTypes),
        Command("listaccounts", .admin, arguments: 0...0, handler: listAccounts),
        Command("addaccount", .admin, arguments: 2...Tokenizer.maximumArguments, available: hasAccounts, handler: addAccount),
        Command("removeaccount", .admin, arguments: 1...1, available: hasAccounts, handler: removeAccount),
        Command("signin", .admin, arguments: 1...3, available: hasAccounts, handler: signIn),
        Command("signincode", .admin, arguments: 2...2, available: hasAccounts, handler: signInCode),
        Command("signinpassword", .admin, arguments: 2...2, available: hasAccounts, handler: signInPassword),
        Command("signincancel", .admin, arguments: 1...1, available: hasAccounts, handler: signInCancel),
        Command("signout", .admin, arguments: 1...1, available: hasAccounts, handler: signOut),
    ]

    /// Arguments whose values are secrets, masked in the verbose log.
    nonisolated static let secretArguments: [String: Int] = ["signinpassword": 1, "signincode": 1, "subsonicuseradd": 1]

    static func control(_ call: CommandCall) throws -> any AccountControl {
        guard let control = call.context.accounts else { throw ProtocolError(.unknown, "No cloud accounts") }
        return control
    }

    static func accountTypes(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        for type in try control(call).types {
            out.field("type", type.type)
            out.field("signin", type.signIn)
            for need in type.needs { out.field("needs", need) }
            for optional in type.accepts { out.field("accepts", optional) }
        }
        return .ok
    }

    /// What `nimbus accounts` shows. Never a token or a password.
    static func listAccounts(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let database = call.context.library?.database
        for listing in call.context.accounts?.listing ?? [] {
            let account = listing.summary, report = account.report
            out.field("account", account.name)
            out.field("type", account.type)
            out.field("origin", account.addedAtRunTime ? "client" : "config")
            out.field("state", report.state.rawValue)
            out.field("signin", listing.signIn)
            if let problem = listing.signInProblem { out.field("signin_problem", problem) }
            if let since = report.since { out.field("since", iso8601: since) }
            if let until = report.until { out.field("until", iso8601: until) }
            if let reason = report.reason { out.field("reason", reason) }
            if let user = report.user { out.field("user", user) }
            out.field("songs", String(database?.directory(at: account.name)?.songCount ?? 0))
            out.field("cached", String(account.cachedBytes))
            out.field("pinned", String(account.pinnedBytes))
            if let updated = report.lastUpdate { out.field("updated", iso8601: updated) }
        }
        return .ok
    }

    static func addAccount(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let rest = Array(call.arguments.dropFirst(2))
        guard rest.count % 2 == 0 else { throw ProtocolError.argument("Settings come in pairs: KEY VALUE") }
        let settings = stride(from: 0, to: rest.count, by: 2).map { (key: rest[$0], value: rest[$0 + 1]) }
        try control(call).add(call[0], type: call[1], settings: settings)
        call.context.idle.emit([.account, .mount])
        return .ok
    }

    static func removeAccount(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try control(call).remove(call[0])
        call.context.idle.emit([.account, .mount])
        return .ok
    }

    /// `signin NAME [redirect URI]`: starts the flow and says at once what the person must do;
    /// the daemon polls a device code or a login itself.
    static func signIn(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        var redirect: String?
        if call.arguments.count > 1 {
            guard call.arguments.count == 3, call[1] == "redirect", isLoopback(call[2]) else {
                throw ProtocolError.argument("Usage: signin NAME [redirect http://127.0.0.1:PORT/]")
            }
            redirect = call[2]
        }
        let control = try control(call)
        let request = try control.signInRequest(call[0], redirect: redirect)
        let flows = control.flows
        let idle = call.context.idle
        return .deferred {
            let prompt: SignInPrompt
            do throws(SignInError) {
                prompt = try flows.start(request)
            } catch {
                throw ProtocolError(.system, error.description)
            }
            return {
                idle.emit(.account)
                var out = ResponseWriter()
                out.field("method", prompt.method)
                if let code = prompt.userCode { out.field("user_code", code) }
                if let url = prompt.verificationURL { out.field("verification_url", url) }
                if let url = prompt.authorizeURL { out.field("authorize_url", url) }
                if let uri = prompt.redirectURI { out.field("redirect_uri", uri) }
                if let seconds = prompt.expiresIn { out.field("expires_in", String(seconds)) }
                if let fingerprint = prompt.fingerprint {
                    out.field("fingerprint", fingerprint)
                    out.field("host_key", prompt.hostKeyKnown ? "known" : "new")
                }
                return out
            }
        }
    }

    /// A redirect the CLI listens on: the loopback address, nothing else (a client must not
    /// send someone's code elsewhere).
    static func isLoopback(_ uri: String) -> Bool {
        uri.hasPrefix("http://127.0.0.1:") || uri.hasPrefix("http://[::1]:") || uri.hasPrefix("http://localhost:")
    }

    static func signInCode(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let control = try control(call)
        _ = try control.signInRequest(call[0], redirect: nil)
        let flows = control.flows, account = call[0], pasted = call[1]
        return .deferred {
            do throws(SignInError) {
                try flows.complete(account, pasted: pasted)
            } catch {
                throw ProtocolError(.argument, error.description)
            }
            return { ResponseWriter() }
        }
    }

    static func signInPassword(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let control = try control(call)
        let request = try control.signInRequest(call[0], redirect: nil)
        let flows = control.flows, password = call[1]
        return .deferred {
            do throws(SignInError) {
                try flows.password(request, password)
            } catch {
                if case .refused = error { throw ProtocolError(.password, error.description) }
                throw ProtocolError(.system, error.description)
            }
            return { ResponseWriter() }
        }
    }

    static func signInCancel(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try control(call).cancelSignIn(call[0])
        return .ok
    }

    static func signOut(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        try control(call).signOut(call[0])
        call.context.idle.emit(.account)
        return .ok
    }
}
