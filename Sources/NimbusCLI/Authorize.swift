import Foundation

/// `nimbus authorize ACCOUNT`: asks the daemon to sign the account in (`signin`), shows the
/// person what to do — a code to enter on the provider's page, an address to open, a
/// password to type — and waits on the `account` idle event until the daemon says how it
/// ended. The flow runs in the daemon, so this works from any machine that reaches it;
/// Ctrl-C cancels it there (`signincancel`).
struct Authorize {
    let account: String
    let options: Options

    func run() -> Int32 {
        let link = DaemonLink.required(options)
        Console.catchInterrupt()
        let receiver = try? LoopbackReceiver()
        var command = "signin " + DaemonLink.quoted(account)
        if let receiver { command += " redirect " + DaemonLink.quoted("http://127.0.0.1:\(receiver.port)/") }
        let prompt = Dictionary(link.fields(command, failing: "cannot start the sign-in"), uniquingKeysWith: { first, _ in first })
        switch prompt["method"] {
        case "device":
            Console.say(
                "To let Nimbus read \(account), open \(prompt["verification_url"] ?? "?") on any device and enter the code \(prompt["user_code"] ?? "?")")
            Console.say("Waiting for you to confirm (Ctrl-C to stop)")
        case "browser":
            Console.say("To let Nimbus read \(account), open this address in a browser and log in:\n  \(prompt["verification_url"] ?? "?")")
            Console.say("Waiting for you to log in (Ctrl-C to stop)")
        case "code":
            code(link, prompt, receiver: receiver)
        case "password":
            if let fingerprint = prompt["fingerprint"] { confirm(link, fingerprint: fingerprint, known: prompt["host_key"] == "known") }
            password(link)
        default:
            Console.fail("nimbusd answered signin with an unknown method \"\(prompt["method"] ?? "")\"")
        }
        let outcome = waitForOutcome(link)
        switch outcome["signin"] {
        case "signed in":
            let user = outcome["user"].map { " as \($0)" } ?? ""
            Console.say("\nSigned in\(user) — Nimbus can now read \(account).")
            return 0
        case "expired": Console.fail("The code expired before it was entered; run nimbus authorize again for a new one.")
        case "declined": Console.fail("Access was declined on the provider's page; run nimbus authorize again to retry.")
        case "cancelled": Console.fail("Sign-in cancelled; nothing was changed.")
        default: Console.fail(outcome["signin_problem"] ?? "The sign-in did not finish (\(outcome["signin"] ?? "?")).")
        }
    }

    /// The account's `listaccounts` record.
    private func record(_ link: DaemonLink) -> [String: String] {
        let records = Accounts.blocks(link.fields("listaccounts", failing: "cannot list the accounts"), startingWith: "account")
        guard let record = records.first(where: { $0["account"] == account }) else { Console.fail("\(account) is gone from nimbusd") }
        return record
    }

    /// Waits on `idle account` until the sign-in is no longer waiting; Ctrl-C cancels it in
    /// the daemon. Then, briefly, for the daemon to learn who signed in.
    private func waitForOutcome(_ link: DaemonLink) -> [String: String] {
        var current = record(link)
        while current["signin"] == "waiting" {
            if !link.idle("account", until: { Console.wasInterrupted }) {
                _ = link.request("signincancel " + DaemonLink.quoted(account))
                Console.fail("Sign-in cancelled; nothing was changed.")
            }
            current = record(link)
        }
        let deadline = Date(timeIntervalSinceNow: 5)
        while current["signin"] == "signed in", current["user"] == nil, Date() < deadline, Console.wait(0.2, dots: false) {
            current = record(link)
        }
        return current
    }

    /// A code flow: the browser comes back to our loopback listener, or the person pastes
    /// the code (Dropbox shows one) or the address the browser ended at.
    private func code(_ link: DaemonLink, _ prompt: [String: String], receiver: LoopbackReceiver?) {
        let address = prompt["authorize_url"] ?? "?"
        let answer: String
        if let receiver, let redirect = prompt["redirect_uri"], redirect == "http://127.0.0.1:\(receiver.port)/" {
            Console.say("To let Nimbus read \(account), open this address in a browser and allow access:\n  \(address)")
            Console.say(
                "A browser on this machine comes back by itself. On another device the last page will not load: copy its address"
                    + " from the address bar and paste it here.")
            guard let received = receiver.wait() else { cancel(link) }
            answer = received
        } else {
            Console.say("To let Nimbus read \(account), open this address in a browser, allow access, and paste the code it shows:\n  \(address)")
            FileHandle.standardError.write(Data("Code: ".utf8))
            guard let line = readLine(strippingNewline: true), !line.trimmingCharacters(in: .whitespaces).isEmpty else { cancel(link) }
            answer = line
        }
        if case .ack(let message) = link.request("signincode " + DaemonLink.quoted(account) + " " + DaemonLink.quoted(answer)) {
            Console.fail(DaemonLink.reason(message))
        }
    }

    private func password(_ link: DaemonLink) {
        let fields = Dictionary(record(link).map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        let user = fields["user"].map { "Password for \($0)" } ?? "Password"
        guard let secret = Console.readSecret(prompt: "\(user) at \(account): "), !secret.isEmpty else { cancel(link) }
        if case .ack(let message) = link.request("signinpassword " + DaemonLink.quoted(account) + " " + DaemonLink.quoted(secret)) {
            Console.fail(DaemonLink.reason(message))
        }
    }

    /// An SSH server's host key, shown for the person to compare with the server's own
    /// (`ssh-keygen -lf`): never trusted without a yes.
    private func confirm(_ link: DaemonLink, fingerprint: String, known: Bool) {
        if known {
            Console.say("The server's host key \(fingerprint) is the one trusted before.")
            return
        }
        Console.say("The server of \(account) presents the host key\n  \(fingerprint)\nCompare it with what the server shows:"
            + " ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub")
        print("Is it the same? [y/N] ", terminator: "")
        guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else { cancel(link) }
    }

    private func cancel(_ link: DaemonLink) -> Never {
        _ = link.request("signincancel " + DaemonLink.quoted(account))
        Console.fail("Sign-in cancelled; nothing was changed.")
    }
}
