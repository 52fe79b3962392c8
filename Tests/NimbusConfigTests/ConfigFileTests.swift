import NimbusConfig
import NimbusHarness
import XCTest

final class ConfigFileTests: XCTestCase {
    private func error(_ text: String) -> ConfigError? {
        do {
            _ = try ConfigFile.parse(text, file: "t.conf")
            return nil
        } catch {
            return error
        }
    }

    func testParamsBlocksAndComments() throws {
        let file = try ConfigFile.parse(
            """
            # a comment
              music_directory "~/Music"   # trailing comment
            port "6600"
            audio_output {
                type "alsa"
                name "My \\"DAC\\""
            }
            bind_to_address "127.0.0.1"
            bind_to_address "/run/nimbus/socket"
            """, file: "t.conf")
        XCTAssertEqual(file.value("music_directory"), "~/Music")
        XCTAssertEqual(file.param("port")?.location, ConfigLocation(file: "t.conf", line: 3))
        XCTAssertEqual(file.all("bind_to_address").map(\.value), ["127.0.0.1", "/run/nimbus/socket"])
        XCTAssertEqual(file.blocks.count, 1)
        XCTAssertEqual(file.blocks[0].name, "audio_output")
        XCTAssertEqual(file.blocks[0].value("name"), #"My "DAC""#)
        XCTAssertEqual(file.blocks[0].param("type")?.location.line, 5)
    }

    func testRepeatedKeyKeepsAllAndLastWins() throws {
        let file = try ConfigFile.parse("port \"1\"\nport \"2\"\n")
        XCTAssertEqual(file.value("port"), "2")
        XCTAssertEqual(file.all("port").count, 2)
    }

    func testCarriageReturnLineEndings() throws {
        XCTAssertEqual(try ConfigFile.parse("port \"6601\"\r\n").value("port"), "6601")
    }

    func testErrorsCarryFileAndLine() {
        XCTAssertEqual(error("port 6600"), ConfigError("'\"' expected", at: .init(file: "t.conf", line: 1)))
        XCTAssertEqual(error("\nport \"1\" extra")?.description, "t.conf:2: Unknown tokens after value")
        XCTAssertEqual(error("port \"1")?.message, "Missing closing '\"'")
        XCTAssertEqual(error("port \"1\"x")?.message, "Space expected after closing '\"'")
        XCTAssertEqual(error("port")?.message, "Value missing")
        XCTAssertEqual(error("audio_output{\n}")?.message, "Invalid word character")
        XCTAssertEqual(error("audio_output\n{\n}")?.message, "'{' expected")
        XCTAssertEqual(error("audio_output {\n type \"null\"\n} junk")?.description, "t.conf:3: Unknown tokens after '}'")
        XCTAssertEqual(error("audio_output {\n type \"null\"")?.message, "Expected '}' before end-of-file")
        XCTAssertEqual(error("audio_output {\n type null\n}")?.description, "t.conf:2: '\"' expected")
    }

    func testIncludeIsRelativeToTheIncludingFile() throws {
        let directory = TemporaryDirectory()
        directory.write("conf.d/extra.conf", "port \"6611\"\n")
        let main = directory.write("main.conf", "include \"conf.d/extra.conf\"\ninclude_optional \"missing.conf\"\n")
        let file = try ConfigFile.load(path: main)
        XCTAssertEqual(file.value("port"), "6611")
        XCTAssertEqual(file.param("port")?.location.file, directory.path + "/conf.d/extra.conf")
    }

    func testMissingIncludeIsAnErrorAtTheIncludeLine() {
        let directory = TemporaryDirectory()
        let main = directory.write("main.conf", "\ninclude \"nope.conf\"\n")
        XCTAssertThrowsError(try ConfigFile.load(path: main)) { error in
            XCTAssertEqual(
                (error as? ConfigError)?.description,
                "\(main):2: Failed to open '\(directory.path)/nope.conf': No such file or directory")
        }
    }

    func testIncludeLoopIsCaught() {
        let directory = TemporaryDirectory()
        let main = directory.write("main.conf", "include \"main.conf\"\n")
        XCTAssertThrowsError(try ConfigFile.load(path: main))
    }

    func testTildeExpansion() {
        XCTAssertEqual(PathExpansion.expand("~/Music", home: "/home/u"), "/home/u/Music")
        XCTAssertEqual(PathExpansion.expand("~", home: "/home/u"), "/home/u")
        XCTAssertEqual(PathExpansion.expand("/abs/~x", home: "/home/u"), "/abs/~x")
        XCTAssertEqual(PathExpansion.expand("~root/x"), "/root/x")
    }
}
