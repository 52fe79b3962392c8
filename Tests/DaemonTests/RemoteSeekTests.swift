import Foundation
import NimbusHarness
import XCTest

/// A seek deep into a song played from a URL reads what is near the target, not everything
/// before it: MP3 by byte offset (the Xing table of contents, or the constant bit rate and the
/// length), FLAC, Ogg, Opus and m4a by their own indexes and bisection.
final class RemoteSeekTests: XCTestCase {
    private static let seconds = 600
    private static let target = 450

    private func makeSongs(on server: HTTPFileServer) throws -> [String] {
        let work = TemporaryDirectory("nimbus-remote-seek")
        let wav = work.file("long.wav")
        try runTool("sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", wav, "synth", String(Self.seconds), "sine", "440", "vol", "0.5"])
        let songs: [(String, String, [String])] = [
            ("cbr.mp3", "lame", ["--quiet", "-b", "32", "--cbr", "-t", wav]),  // no Xing/Info header: the bit rate alone
            ("vbr.mp3", "lame", ["--quiet", "-V", "7", wav]),  // a Xing table of contents
            ("long.flac", "flac", ["-s", "-f", wav]),
            ("long.ogg", "oggenc", ["-Q", "-q", "10", "--serial", "7", wav]),
            ("long.opus", "opusenc", ["--quiet", "--bitrate", "24", "--serial", "7", wav]),
            ("long.m4a", "ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", wav, "-c:a", "aac", "-b:a", "32k"]),
        ]
        for (name, tool, arguments) in songs {
            let out = work.file(name)
            switch tool {
            case "lame": try runTool(tool, arguments + [out])
            case "flac": try runTool(tool, arguments + ["-o", out])
            case "oggenc", "opusenc": try runTool(tool, tool == "oggenc" ? arguments + ["-o", out] : arguments + [out])
            default: try runTool(tool, arguments + [out])
            }
            try server.put(name, Array(try Data(contentsOf: URL(fileURLWithPath: out))))
        }
        return songs.map(\.0)
    }

    private func elapsed(_ client: LineClient) -> Double {
        ((try? client.request("status")) ?? []).first { $0.hasPrefix("elapsed: ") }.flatMap { Double($0.dropFirst(9)) } ?? 0
    }

    /// Bytes of `range` that the server sent, from its log of ranged requests.
    private func covered(_ range: Range<Int>, of name: String, on server: HTTPFileServer, size: Int) -> Int {
        var sent: [Range<Int>] = []
        for request in server.requests where request.path == "/" + name && request.bytes > 0 {
            var first = 0
            if let spec = request.range, spec.hasPrefix("bytes=") {
                let bounds = spec.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
                first = bounds.first.flatMap { Int($0) } ?? max(0, size - (bounds.last.flatMap { Int($0) } ?? 0))
            }
            sent.append(first..<(first + request.bytes))
        }
        return range.reduce(0) { total, offset in total + (sent.contains { $0.contains(offset) } ? 1 : 0) }
    }

    /// Starting a URL song at 7:30 of 10:00 (as a client resuming an episode does): the bytes
    /// between its head and the target stay on the server.
    func testASeekFarIntoAURLSongReadsOnlyNearTheTarget() throws {
        let server = try HTTPFileServer()
        defer { server.stop() }
        let names = try makeSongs(on: server)
        let daemon = try ServerProcess(.nimbus)
        let client = try daemon.connect()
        for name in names {
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: server.root + "/" + name)[.size] as? Int)
            XCTAssertEqual(try client.request("clear"), ["OK"])
            XCTAssertEqual(try client.request("add \"\(server.url)/\(name)\""), ["OK"])
            XCTAssertEqual(try client.request("seek 0 \(Self.target)"), ["OK"])
            XCTAssertTrue(waitUntil(timeout: 20) { self.elapsed(client) > Double(Self.target) + 0.3 }, "\(name) never played after the seek")
            let at = elapsed(client)
            XCTAssertLessThan(at, Double(Self.target) + 10, "\(name): elapsed is where the seek went")
            XCTAssertEqual(try client.request("stop"), ["OK"])
            // The middle of the file (15% to 70%, well before the 75% the target lies at).
            let middle = (size * 15 / 100)..<(size * 70 / 100)
            let read = covered(middle, of: name, on: server, size: size)
            let log = server.requests.filter { $0.path == "/" + name }.map { "\($0.range ?? "-"):\($0.bytes)" }.joined(separator: " ")
            if ProcessInfo.processInfo.environment["NIMBUS_SEEK_LOG"] != nil { print("\(name) size \(size): \(log)") }
            XCTAssertLessThan(Double(read) / Double(middle.count), 0.2, "\(name): \(read) of the \(middle.count) bytes before the target; requests: \(log)")
        }
    }
}
