import NimbusConfig
import NimbusStorage
import XCTest

/// The keys `nimbus authorize` reads and the files it writes when a block names none.
final class CloudSignInConfigurationTests: XCTestCase {
    func testSignInKeysAndDefaultSecretFiles() throws {
        let config = try DaemonConfiguration.from(
            ConfigFile.parse(
                """
                cloud {
                    name "yadisk"
                    type "yandex-disk"
                    client_id "app"
                    client_secret "app-secret"
                    device_code_url "http://127.0.0.1:1/device/code"
                }
                cloud {
                    name "nas"
                    type "webdav"
                    url "https://nas/dav/"
                    user "me"
                }
                cloud {
                    name "share"
                    type "webdav"
                    url "https://nas/public/"
                }
                """, file: "mpd.conf"), home: "/home/u")
        var warnings: [String] = []
        let accounts = CloudProviderRegistry.standard.accounts(
            config.cloud(warnings: &warnings), secretsDirectory: config.secretsDirectory, warnings: &warnings)
        XCTAssertEqual(warnings, [], "client_secret and device_code_url are sign-in settings")
        XCTAssertEqual(accounts[0].settings["token_file"], "/home/u/.local/state/nimbus/accounts/yadisk.token")
        XCTAssertEqual(accounts[0].settings["client_secret"], "app-secret")
        XCTAssertEqual(accounts[1].settings["password_file"], "/home/u/.local/state/nimbus/accounts/nas.password")
        XCTAssertNil(accounts[2].settings["password_file"], "a share without a login needs no password")
    }

    func testAnUnknownTypeOrAMissingURLIsLeftOutWithAWarning() throws {
        let config = try DaemonConfiguration.from(
            ConfigFile.parse(
                """
                cloud {
                    name "box"
                    type "box-com"
                }
                cloud {
                    name "nas"
                    type "webdav"
                }
                """, file: "mpd.conf"), home: "/home/u")
        var warnings: [String] = []
        let accounts = CloudProviderRegistry.standard.accounts(
            config.cloud(warnings: &warnings), secretsDirectory: config.secretsDirectory, warnings: &warnings)
        XCTAssertEqual(accounts.count, 0)
        XCTAssertEqual(warnings.count, 2)
        XCTAssertTrue(warnings[0].hasPrefix("mpd.conf:1: cloud account \"box\": type must be one of webdav, nextcloud, yandex-webdav, yandex-disk"), warnings[0])
        XCTAssertTrue(warnings[1].hasSuffix("webdav account \"nas\" needs a \"url\"; ignored"), warnings[1])
    }

    /// `addaccount`'s settings: the daemon places the secret file itself (a client naming one
    /// could make it write anywhere), a provider's needs are enforced, values are one line.
    func testRuntimeAccountsPlaceTheirOwnSecretFiles() throws {
        let registry = CloudProviderRegistry.standard
        let account = try registry.runtimeAccount(
            name: "cloud", type: "nextcloud", settings: [("url", "https://cloud.example.com"), ("root", "Music/")],
            secretsDirectory: "/state/accounts")
        XCTAssertEqual(account.settings["login_file"], "/state/accounts/cloud.login")
        XCTAssertEqual(account.root, "/Music")
        for (settings, message) in [
            ([("url", "https://h/"), ("token_file", "/etc/x")], "unknown setting \"token_file\""),
            ([("url", "https://h/"), ("url", "https://i/")], "\"url\" is given twice"),
            ([("url", "https://h/\nX-Evil: 1")], "\"url\" must be one line of 1 to 2048 bytes"),
            ([("user", "me")], "a nextcloud account needs \"url\""),
        ] {
            XCTAssertThrowsError(try registry.runtimeAccount(name: "c", type: "nextcloud", settings: settings, secretsDirectory: "/s")) { error in
                XCTAssertTrue((error as? AccountSettingsError)?.message.hasPrefix(message) == true, "\(error)")
            }
        }
        let types = Dictionary(uniqueKeysWithValues: registry.types.map { ($0.type, $0) })
        XCTAssertEqual(types["webdav"]?.signIn, "password")
        XCTAssertEqual(types["dropbox"]?.signIn, "code")
        XCTAssertEqual(types["onedrive"]?.needs, ["client_id"])
        XCTAssertEqual(types["yandex-webdav"]?.needs, ["user"])
    }
}
