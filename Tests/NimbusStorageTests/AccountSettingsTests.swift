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
        XCTAssertTrue(warnings[0].hasPrefix("mpd.conf:1: cloud account \"box\": type must be one of webdav, yandex-disk"), warnings[0])
        XCTAssertTrue(warnings[1].hasSuffix("webdav account \"nas\" needs a \"url\"; ignored"), warnings[1])
    }
}
