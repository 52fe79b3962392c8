import Foundation
import NimbusConfig
import NimbusStorage

/// `nimbus authorize ACCOUNT`: runs the account's sign-in, saves what it produced where the
/// daemon reads it (0600, replaced atomically), then asks a running daemon to take it up.
struct Authorize {
    let account: String
    let configPath: String
    let options: Options

    func run() -> Int32 {
        let configuration: DaemonConfiguration
        do {
            configuration = try DaemonConfiguration.from(try ConfigFile.load(path: configPath))
        } catch {
            Console.fail("\(configPath): \(error.description)")
        }
        var warnings: [String] = []
        let accounts = CloudProviderRegistry.standard.accounts(
            configuration.cloud(warnings: &warnings), secretsDirectory: configuration.secretsDirectory, warnings: &warnings)
        guard let found = accounts.first(where: { $0.name == account }) else {
            let names = accounts.map(\.name)
            Console.fail(
                "\(configPath) has no cloud account named \"\(account)\""
                    + (names.isEmpty ? "; add a cloud { } block (see README, Connect your cloud)" : " (it has: \(names.joined(separator: ", ")))"))
        }
        guard let plugin = CloudProviderRegistry.standard.plugin(forType: found.type) else {
            Console.fail("\(account): cloud type \"\(found.type)\" is not supported")
        }
        do throws(SignInError) {
            let message: String
            switch plugin.signIn(found.settings) {
            case .password: message = try password(found)
            case .deviceCode(let endpoints): message = try deviceCode(found, endpoints, plugin)
            case .authorizationCode(let endpoints): message = try authorizationCode(found, endpoints, plugin)
            }
            Console.say(message)
        } catch {
            Console.fail(error.description)
        }
        Console.say(DaemonLink.update(account, at: options.address(configuration)))
        return 0
    }

    /// The app's id, and where the token goes.
    private func app(_ found: CloudAccountConfiguration) throws(SignInError) -> (clientID: String, tokenFile: String) {
        guard let clientID = found.settings["client_id"], !clientID.isEmpty else {
            throw .failed(
                "\(account): its cloud block has no client_id; register an app with the provider (README, Connect your cloud) and add it")
        }
        guard let tokenFile = found.settings["token_file"] else { throw .failed("\(account): no token_file") }
        return (clientID, tokenFile)
    }

    /// Saves the tokens and says who signed in.
    private func finish(
        _ found: CloudAccountConfiguration, _ plugin: any CloudProviderPlugin, _ tokens: TokenSet, in tokenFile: String
    ) throws(SignInError) -> String {
        try SecretFile.write(tokens.json, to: tokenFile)
        let who = plugin.identity(found.settings)?.name(access: tokens.access)
        return "Signed in" + (who.map { " as \($0)" } ?? "") + " — Nimbus can now read \(account). Token saved in \(tokenFile)."
    }

    private func deviceCode(
        _ found: CloudAccountConfiguration, _ endpoints: DeviceCodeSignIn.Endpoints, _ plugin: any CloudProviderPlugin
    ) throws(SignInError) -> String {
        let (clientID, tokenFile) = try app(found)
        let flow = DeviceCodeSignIn(endpoints: endpoints, clientID: clientID, clientSecret: found.settings["client_secret"])
        let authorization = try flow.start()
        Console.say("To let Nimbus read \(account), open \(authorization.verificationURL) on any device and enter the code \(authorization.userCode)")
        Console.say("Waiting for you to confirm (Ctrl-C to stop)")
        Console.catchInterrupt()
        let tokens = try flow.token(for: authorization) { Console.wait($0) }
        return "\n" + (try finish(found, plugin, tokens, in: tokenFile))
    }

    private func authorizationCode(
        _ found: CloudAccountConfiguration, _ endpoints: CodeSignIn.Endpoints, _ plugin: any CloudProviderPlugin
    ) throws(SignInError) -> String {
        let (clientID, tokenFile) = try app(found)
        let flow = CodeSignIn(endpoints: endpoints, clientID: clientID, clientSecret: found.settings["client_secret"])
        Console.catchInterrupt()
        let tokens: TokenSet
        if endpoints.usesLoopback {
            let receiver = try LoopbackReceiver()
            let redirect = "http://127.0.0.1:\(receiver.port)/"
            Console.say("To let Nimbus read \(account), open this address in a browser and allow access:\n  \(flow.authorizationURL(redirectURI: redirect))")
            Console.say(
                "A browser on this machine comes back by itself. On another device the last page will not load: copy its address"
                    + " from the address bar and paste it here. (Or forward the port first: ssh -L \(receiver.port):127.0.0.1:\(receiver.port) THIS-BOX)")
            let answer = try receiver.wait()
            tokens = try flow.exchange(code: try flow.code(fromPasted: answer), redirectURI: redirect)
        } else {
            Console.say("To let Nimbus read \(account), open this address in a browser, allow access, and paste the code it shows:\n  \(flow.authorizationURL(redirectURI: nil))")
            FileHandle.standardError.write(Data("Code: ".utf8))
            guard let line = readLine(strippingNewline: true) else { throw .cancelled }
            tokens = try flow.exchange(code: try flow.code(fromPasted: line), redirectURI: nil)
        }
        return try finish(found, plugin, tokens, in: tokenFile)
    }

    private func password(_ found: CloudAccountConfiguration) throws(SignInError) -> String {
        guard let user = found.settings["user"], let file = found.settings["password_file"] else {
            throw .failed("\(account): a WebDAV share without a user needs no sign-in; add user \"NAME\" to its cloud block to use one")
        }
        guard let secret = Console.readSecret(prompt: "Password for \(user) at \(found.settings["url"] ?? account): "), !secret.isEmpty else {
            throw .cancelled
        }
        try SecretFile.write(Array((secret + "\n").utf8), to: file)
        return "Saved the password of \(user) for \(account) in \(file)."
    }
}
