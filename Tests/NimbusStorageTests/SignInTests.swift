import Foundation
import NimbusHarness
import XCTest

@testable import NimbusStorage

/// The pure parts of signing in: the providers' endpoints and the token file it writes.
final class SignInTests: XCTestCase {
    /// Each provider plugin declares its sign-in, with its endpoints overridable in the block.
    func testEndpointsAreTheProvidersUnlessOverridden() throws {
        func device(_ type: String, _ settings: [String: String]) throws -> DeviceCodeSignIn.Endpoints {
            let plugin = try XCTUnwrap(CloudProviderRegistry.standard.plugin(forType: type))
            guard case .deviceCode(let endpoints) = plugin.signIn(settings) else { throw XCTSkip("\(type) is not a device sign-in") }
            return endpoints
        }
        let yandex = try device("yandex-disk", [:])
        XCTAssertEqual(yandex.deviceCodeURL, "https://oauth.yandex.ru/device/code")
        XCTAssertEqual(yandex.grantType, "device_code")
        XCTAssertEqual(yandex.codeField, "code")
        let onedrive = try device("onedrive", ["token_url": "http://t/token"])
        XCTAssertEqual(onedrive.scope, "Files.Read offline_access")
        XCTAssertEqual(onedrive.tokenURL, "http://t/token")
        XCTAssertEqual(onedrive.grantType, "urn:ietf:params:oauth:grant-type:device_code")
        let registry = CloudProviderRegistry.standard
        XCTAssertEqual(registry.plugin(forType: "webdav")?.signIn(["user": "me"]), .password)
        XCTAssertEqual(registry.plugin(forType: "webdav")?.signIn([:]), SignInMethod.none, "a share without a user")
        guard case .authorizationCode(let google) = registry.plugin(forType: "google-drive")?.signIn(["authorize_url": "http://a/"]) else {
            return XCTFail("Google Drive signs in with a code")
        }
        XCTAssertEqual(google.authorizeURL, "http://a/")
        XCTAssertTrue(google.usesLoopback)
        XCTAssertEqual(registry.plugin(forType: "dropbox")?.signIn([:]).tokenURL, "https://api.dropboxapi.com/oauth2/token")
        XCTAssertEqual(registry.plugin(forType: "yandex-disk")?.tokenScheme, "OAuth")
        XCTAssertEqual(registry.plugin(forType: "webdav")?.configuredUser(["user": "ann"]), "ann")
    }

    func testSecretFilesAreTheOwnersOnlyAndReplacedWhole() throws {
        let directory = TemporaryDirectory("nimbus-secret")
        let path = directory.file("deep/er/a.token")
        try SecretFile.write(Array("one".utf8), to: path)
        try SecretFile.write(Array("two".utf8), to: path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "two")
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: path))[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.file("deep/er")), ["a.token"], "no temporary left")
    }

    func testErrorsAreSentencesWithoutSecrets() {
        XCTAssertEqual(SignInError.denied.description, "Access was declined on the provider's page; run nimbus authorize again to retry.")
        XCTAssertTrue(SignInError.invalidClient("Client not found").description.contains("check client_id"))
    }

    /// rclone's token JSON says when the token expires as RFC 3339 `expiry`, with nanoseconds.
    func testRcloneExpiryIsUnderstood() {
        XCTAssertEqual(OAuthTokens.rfc3339("2026-12-01T15:04:05.123456789+01:00"), 1_796_133_845)
        XCTAssertEqual(OAuthTokens.rfc3339("2026-12-01T14:04:05Z"), 1_796_133_845)
        XCTAssertNil(OAuthTokens.rfc3339("soon"))
    }

    /// S256 of a verifier and SHA-256 itself, against Python's hashlib and FIPS 180's "abc".
    func testPKCEChallengeIsS256() {
        XCTAssertEqual(PKCE.challenge(for: "dBjftJeZ4CVP-mA92tpx0jWtLzpXS2FhaRtmrHpjhBk"), "VJI4FNuldMDulB2Y051fjkYmp2v8gTCsJvvQNon8-wI")
        XCTAssertEqual(
            SHA256.digest(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            SHA256.digest(Array(repeating: UInt8(ascii: "a"), count: 1_000)).map { String(format: "%02x", $0) }.joined(),
            "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3", "several blocks")
        let verifier = PKCE().verifier
        XCTAssertTrue((43...128).contains(verifier.count), "RFC 7636 §4.1 length")
        XCTAssertNotEqual(verifier, PKCE().verifier)
    }

    /// The emulator, as the providers do, refuses a code exchanged without the verifier that
    /// made its challenge.
    func testAWrongVerifierIsRefused() throws {
        let drive = TemporaryDirectory("nimbus-pkce")
        let emulator = try CloudEmulator(provider: "dropbox", root: drive.path)
        let endpoints = CodeSignIn.Endpoints(
            authorizeURL: emulator.api + "/oauth2/authorize", tokenURL: emulator.tokenURL, scope: nil, extra: [:], usesLoopback: false)
        let flow = CodeSignIn(endpoints: endpoints, clientID: emulator.clientID, clientSecret: nil)
        let page = try runTool("/usr/bin/python3", ["-c", "import sys,urllib.request;print(urllib.request.urlopen(sys.argv[1]).read().decode())", flow.authorizationURL(redirectURI: nil)])
        let code = String(page.split(separator: " ").last!).trimmingCharacters(in: .whitespacesAndNewlines)
        let impostor = CodeSignIn(endpoints: endpoints, clientID: emulator.clientID, clientSecret: nil)
        XCTAssertThrowsError(try impostor.exchange(code: code, redirectURI: nil)) {
            XCTAssertEqual($0 as? SignInError, .failed("The provider refused the code: invalid code verifier."))
        }
        XCTAssertThrowsError(try flow.code(fromPasted: "http://127.0.0.1:1/?state=other&code=x"))
        XCTAssertEqual(try flow.code(fromPasted: "http://127.0.0.1:1/?state=\(flow.state)&code=abc"), "abc")
        XCTAssertEqual(try flow.code(fromPasted: "  abc \n"), "abc")
    }
}
