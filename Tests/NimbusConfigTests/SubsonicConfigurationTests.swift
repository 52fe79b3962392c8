import NimbusConfig
import NimbusModel
import XCTest

final class SubsonicConfigurationTests: XCTestCase {
    private func configuration(_ text: String) throws -> DaemonConfiguration {
        try DaemonConfiguration.from(ConfigFile.parse(text, file: "mpd.conf"), home: "/home/u")
    }

    func testUsersAndTheBlock() throws {
        let config = try configuration(
            """
            subsonic_user {
                name "anna"
                password "secret"
                permissions "read,add,player,control"
            }
            subsonic_user {
                name "ben"
                password "pw"
                colour "blue"
            }
            subsonic_user {
                name "anna"
                password "again"
            }
            subsonic_user {
                name "nopassword"
            }
            subsonic {
                port "4533"
                bind_to_address "127.0.0.1"
            }
            """)
        XCTAssertEqual(config.subsonicUsers.map(\.name), ["anna", "ben"])
        XCTAssertEqual(config.subsonicUsers[0].permissions, [.read, .add, .player, .control])
        XCTAssertEqual(config.subsonicUsers[1].permissions, [.read, .add], "the default")
        XCTAssertEqual(config.subsonicUsers[0].password, "secret", "the first of two blocks of one name")
        XCTAssertTrue(config.enabledSubsonic)
        XCTAssertEqual(config.subsonic.port, 4533)
        XCTAssertEqual(config.subsonic.bindAddresses, ["127.0.0.1"])
        XCTAssertTrue(config.warnings.contains { $0.contains("colour") }, "\(config.warnings)")
        XCTAssertTrue(config.warnings.contains { $0.contains("appears twice") }, "\(config.warnings)")
        XCTAssertTrue(config.warnings.contains { $0.contains("without a password") }, "\(config.warnings)")
    }

    func testBadValuesAreErrorsWithTheirLine() {
        for (text, message) in [
            ("subsonic {\n    port \"0\"\n}", "is not a port"),
            ("subsonic {\n    enabled \"maybe\"\n}", "Not a valid boolean"),
            ("subsonic_user {\n    name \"a\"\n    password \"b\"\n    permissions \"read,fly\"\n}", "unknown permission"),
        ] {
            XCTAssertThrowsError(try configuration(text), text) { error in
                XCTAssertTrue((error as? ConfigError)?.description.contains(message) == true, "\(error)")
                XCTAssertTrue((error as? ConfigError)?.description.contains("mpd.conf:") == true, "\(error)")
            }
        }
        XCTAssertFalse(try configuration("subsonic {\n    enabled \"no\"\n}").enabledSubsonic)
    }

    func testTranscodingDefaultsAndTheJukeboxPartition() throws {
        let config = try configuration(
            """
            subsonic {
                transcode_format "OPUS"
                transcode_bitrate "96"
                original_clients "DSub, Tempo"
                jukebox_partition "kitchen"
            }
            subsonic_user {
                name "anna"
                password "secret"
                transcode_format "raw"
            }
            """)
        XCTAssertEqual(config.subsonic.transcode, TranscodeSetting(format: "opus", kbps: 96))
        XCTAssertEqual(config.subsonic.originalClients, ["DSub", "Tempo"])
        XCTAssertEqual(config.subsonic.jukeboxPartition, "kitchen")
        XCTAssertEqual(config.subsonicUsers.first?.transcode, TranscodeSetting(format: "raw"))
        XCTAssertThrowsError(try configuration("subsonic {\n    transcode_format \"wma\"\n}\n"), "a format the box cannot make")
        XCTAssertThrowsError(try configuration("subsonic {\n    transcode_bitrate \"fast\"\n}\n"))
    }
}

extension DaemonConfiguration {
    fileprivate var enabledSubsonic: Bool { subsonic.enabled }
}
