import NimbusStorage
import XCTest

/// ICY in-band metadata taken out of the audio, wherever the chunks happen to cut it.
final class ICYParserTests: XCTestCase {
    private func block(_ title: String) -> [UInt8] {
        let text = Array("StreamTitle='\(title)';StreamUrl='';".utf8)
        let units = (text.count + 15) / 16
        return [UInt8(units)] + text + [UInt8](repeating: 0, count: units * 16 - text.count)
    }

    func testAudioComesOutWholeAndTitlesAsTheyCome() {
        let audio = (0..<100).map { UInt8($0) }
        // 40 audio bytes, a title, 40 bytes, no change (0), 20 bytes.
        let stream = Array(audio[0..<40]) + block("Rock 'n' Roll") + Array(audio[40..<80]) + [0] + Array(audio[80..<100])
        for cut in [1, 3, 7, 16, 41, 1000] {
            var parser = ICYParser(interval: 40)
            var heard: [UInt8] = []
            var titles: [String] = []
            var offset = 0
            while offset < stream.count {
                let piece = Array(stream[offset..<min(stream.count, offset + cut)])
                _ = piece.withUnsafeBytes { raw in
                    parser.feed(raw, audio: { heard += $0; return true }) { titles.append($0) }
                }
                offset += cut
            }
            XCTAssertEqual(heard, audio, "chunks of \(cut)")
            XCTAssertEqual(titles, ["Rock 'n' Roll"], "chunks of \(cut)")
        }
    }

    func testAReaderThatStopsStopsTheFeed() {
        var parser = ICYParser(interval: 4)
        let stop = [UInt8](repeating: 1, count: 10).withUnsafeBytes { raw in parser.feed(raw, audio: { _ in false }) { _ in } }
        XCTAssertFalse(stop)
    }
}
