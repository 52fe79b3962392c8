import NimbusConfig
import NimbusModel
import NimbusSupport
import XCTest

final class DaemonConfigurationTests: XCTestCase {
    private func configuration(_ text: String) throws -> DaemonConfiguration {
        try DaemonConfiguration.from(ConfigFile.parse(text, file: "mpd.conf"), home: "/home/u")
    }

    private func error(_ text: String) -> String? {
        do {
            _ = try configuration(text)
            return nil
        } catch {
            return (error as? ConfigError)?.description
        }
    }

    func testSafeDefaultsWithoutAFile() {
        let config = DaemonConfiguration.defaults(home: "/home/u")
        XCTAssertEqual(config.musicDirectory, "/home/u/Music")
        XCTAssertEqual(config.stateFile, "/home/u/.local/state/nimbus/state")
        XCTAssertEqual(config.databaseFile, "/home/u/.local/state/nimbus/database")
        XCTAssertEqual(config.cacheDirectory, "/home/u/.cache/nimbus")
        XCTAssertEqual(config.bindAddresses, ["127.0.0.1"])
        XCTAssertEqual(config.port, 6600)
        XCTAssertEqual(config.defaultPermissions, .all)
    }

    func testTypicalMPDConf() throws {
        let config = try configuration(
            """
            music_directory "~/Music"
            playlist_directory "/var/lib/mpd/playlists"
            db_file "/var/lib/mpd/tag_cache"
            state_file "/var/lib/mpd/state"
            sticker_file "/var/lib/mpd/sticker.sql"
            log_file "/var/log/mpd/mpd.log"
            log_level "verbose"
            bind_to_address "localhost"
            bind_to_address "/run/mpd/socket"
            port "6601"
            connection_timeout "30"
            max_connections "20"
            max_command_list_size "4096"
            max_output_buffer_size "16384"
            auto_update "yes"
            zeroconf_enabled "no"
            zeroconf_name "Living room"
            audio_output {
                type "alsa"
                name "DAC"
                device "hw:1,0"
            }
            """)
        XCTAssertEqual(config.musicDirectory, "/home/u/Music")
        XCTAssertEqual(config.databaseFile, "/var/lib/mpd/tag_cache")
        XCTAssertEqual(config.logFile, "/var/log/mpd/mpd.log")
        XCTAssertEqual(config.logLevel, .debug)
        XCTAssertEqual(config.bindAddresses, ["localhost", "/run/mpd/socket"])
        XCTAssertEqual(config.port, 6601)
        XCTAssertEqual(config.connectionTimeout, 30)
        XCTAssertEqual(config.maxConnections, 20)
        XCTAssertEqual(config.maxCommandListSize, 4096 * 1024)
        XCTAssertEqual(config.maxOutputBufferSize, 16384 * 1024)
        XCTAssertTrue(config.autoUpdate)
        XCTAssertFalse(config.zeroconfEnabled)
        XCTAssertEqual(config.zeroconfName, "Living room")
        XCTAssertEqual(config.audioOutputs.first?.value("device"), "hw:1,0")
        XCTAssertEqual(config.warnings, [])
    }

    func testAFileWithoutBindAddressListensEverywhereLikeMPD() throws {
        XCTAssertEqual(try configuration("port \"6600\"").bindAddresses, ["any"])
    }

    func testUnknownKeysWarnWithFileAndLine() throws {
        let config = try configuration("\nfrobnicate \"1\"\ngapless_mp3_playback \"yes\"\nwhatever {\n a \"b\"\n}\n")
        XCTAssertEqual(
            config.warnings,
            [
                "mpd.conf:2: unknown setting 'frobnicate'; ignored",
                "mpd.conf:3: 'gapless_mp3_playback' is not supported by Nimbus; ignored",
                "mpd.conf:4: unknown block 'whatever'; ignored",
            ])
    }

    /// An mpd.conf's `database` block moves the database as MPD's does; what Nimbus will not
    /// do (a proxy database) warns and keeps the local one; symbolic links follow MPD's defaults.
    func testTheDatabaseBlockAndSymbolicLinkDefaultsAsMPD() throws {
        let config = try configuration("database {\n plugin \"simple\"\n path \"/var/lib/mpd/db\"\n compress \"no\"\n}\n")
        XCTAssertEqual(config.databaseFile, "/var/lib/mpd/db")
        XCTAssertEqual(config.warnings, ["mpd.conf:4: database setting 'compress' changes nothing in Nimbus; ignored"])
        XCTAssertTrue(config.followOutsideSymlinks && config.followInsideSymlinks)
        let proxy = try configuration("db_file \"/x/db\"\ndatabase {\n plugin \"proxy\"\n host \"nas\"\n}\n")
        XCTAssertEqual(proxy.databaseFile, "/x/db")
        XCTAssertEqual(proxy.warnings, ["mpd.conf:2: database plugin \"proxy\" is not supported by Nimbus; the local music directory's database is used"])
        XCTAssertEqual(error("database {\n path \"relative/db\"\n}\n"), "mpd.conf:2: path: not an absolute path: relative/db")
        let links = try configuration("follow_outside_symlinks \"no\"\nfollow_inside_symlinks \"no\"\n")
        XCTAssertFalse(links.followOutsideSymlinks || links.followInsideSymlinks)
        XCTAssertEqual(links.warnings, [])
    }

    func testReplayGainSettings() throws {
        let config = try configuration(
            "replaygain \"album\"\nreplaygain_preamp \"-2.5\"\nreplaygain_missing_preamp \"3\"\nreplaygain_limit \"no\"")
        XCTAssertEqual(config.replayGainMode, "album")
        XCTAssertEqual(config.replayGainPreamp, -2.5)
        XCTAssertEqual(config.replayGainMissingPreamp, 3)
        XCTAssertFalse(config.replayGainLimit)
        XCTAssertThrowsError(try configuration("\nreplaygain \"loud\"")) { error in
            XCTAssertEqual("\(error)", "mpd.conf:2: Invalid replaygain parameter \"loud\"")
        }
        XCTAssertThrowsError(try configuration("replaygain_preamp \"20\""))
    }

    func testPasswordsAndPermissions() throws {
        let config = try configuration(
            """
            password "secret@read"
            password "boss@read,add,control,admin"
            default_permissions "read"
            """)
        XCTAssertEqual(config.passwords.map(\.password), ["secret", "boss"])
        XCTAssertEqual(config.passwords[0].permissions, .read)
        XCTAssertEqual(config.passwords[1].permissions, .all)
        XCTAssertEqual(config.defaultPermissions, .read)
        XCTAssertEqual(config.localPermissions, .read)
    }

    func testAPasswordRemovesDefaultPermissions() throws {
        XCTAssertEqual(try configuration("password \"x@read\"").defaultPermissions, [])
        XCTAssertEqual(try configuration("password \"x@\"").passwords.first?.permissions, [])
    }

    func testBadValuesAreErrorsAtTheirLine() {
        XCTAssertEqual(error("password \"abc\""), "mpd.conf:1: \"@\" not found in password string")
        XCTAssertEqual(error("\npassword \"abc@bogus\""), "mpd.conf:2: unknown permission \"bogus\"")
        XCTAssertEqual(error("max_connections \"abc\""), "mpd.conf:1: max_connections: Failed to parse number")
        XCTAssertEqual(error("max_connections \"-5\""), "mpd.conf:1: max_connections: Value must be positive")
        XCTAssertEqual(error("port \"70000\""), "mpd.conf:1: port: Value too large")
        XCTAssertEqual(error("log_level \"loud\""), "mpd.conf:1: unknown log level \"loud\"")
        XCTAssertEqual(error("db_file \"rel/db\""), "mpd.conf:1: db_file: not an absolute path: rel/db")
        XCTAssertEqual(error("auto_update \"maybe\""), "mpd.conf:1: auto_update: Not a valid boolean (\"yes\" or \"no\"): maybe")
    }

    func testPermissionParsing() throws {
        XCTAssertEqual(try Permission(parsing: "read,add"), [.read, .add])
        XCTAssertEqual(try Permission(parsing: "control"), [.control, .player])
        XCTAssertEqual(try Permission(parsing: ""), [])
        XCTAssertEqual(try Permission(parsing: "read,,admin"), [.read, .admin])
        XCTAssertThrowsError(try Permission(parsing: "read,root"))
    }

    func testABindAddressThatCannotBeIsReportedWithItsLine() {
        XCTAssertEqual(
            error("port \"6600\"\nbind_to_address \"256.1.1.1\""),
            "mpd.conf:2: bind_to_address: \"256.1.1.1\" is not an IP address, host name or socket path")
        XCTAssertNotNil(error("bind_to_address \"[::zz]\""))
        XCTAssertNil(error("bind_to_address \"192.168.1.20\"\nbind_to_address \"[::1]\"\nbind_to_address \"box.local\""))
        XCTAssertNil(error("bind_to_address \"/run/nimbus/socket\"\nbind_to_address \"@nimbus\"\nbind_to_address \"any\""))
    }

    /// A huge value is not echoed back whole in the error.
    func testAHugeValueIsNotEchoedWhole() throws {
        let message = try XCTUnwrap(error("log_level \"" + String(repeating: "x", count: 10_000_000) + "\""))
        XCTAssertLessThan(message.count, 400)
        XCTAssertTrue(message.hasPrefix("mpd.conf:1: unknown log level"))
    }

    func testADirectoryGivenAsTheConfigFileIsSaidToBeOne() {
        XCTAssertThrowsError(try ConfigFile.load(path: "/tmp")) { error in
            XCTAssertEqual((error as? ConfigError)?.description, "Failed to open '/tmp': Is a directory")
        }
    }

    func testTheUserSettingIsRead() throws {
        XCTAssertEqual(try configuration("user \"mpd\"").user, "mpd")
        XCTAssertNil(try configuration("").user)
    }
}
