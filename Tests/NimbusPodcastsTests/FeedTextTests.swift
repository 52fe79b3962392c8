import Foundation
import NimbusPodcasts
import XCTest

final class FeedTextTests: XCTestCase {
    func testDurationsInEveryShape() {
        XCTAssertEqual(FeedText.duration("3600"), 3600)
        XCTAssertEqual(FeedText.duration(" 61:05 "), 3665)
        XCTAssertEqual(FeedText.duration("1:01:05.5"), 3665.5)
        for bad in ["", "abc", "1:2:3:4", "-5", "0", "1::2"] { XCTAssertNil(FeedText.duration(bad), bad) }
    }

    func testDatesAsFeedsWriteThem() {
        XCTAssertEqual(FeedText.date("Wed, 02 Dec 2026 07:00:00 +0000"), Date(timeIntervalSince1970: 1_796_194_800))
        XCTAssertEqual(FeedText.date("Wed, 2 Dec 2026 07:00:00 GMT"), Date(timeIntervalSince1970: 1_796_194_800))
        XCTAssertEqual(FeedText.date("2026-12-02T07:00:00Z"), Date(timeIntervalSince1970: 1_796_194_800))
        XCTAssertNil(FeedText.date("yesterday"))
    }

    func testHTMLBecomesPlainText() {
        XCTAssertEqual(FeedText.plain("<p>One &amp; <i>two</i></p><p>Three&#x21;</p>"), "One & two\nThree!")
        XCTAssertEqual(FeedText.plain("a <script>x</script> b"), "a x b", "tags go, their text stays")
        XCTAssertEqual(FeedText.plain("1 &lt; 2 &unknown; 3"), "1 < 2 &unknown; 3")
        XCTAssertEqual(FeedText.plain(String(repeating: "x", count: 5000)).count, 4001)
    }

    func testOnlyWebAddressesResolve() {
        let base = URL(string: "https://a.example/feed/rss")!
        XCTAssertEqual(FeedText.resolve("../e.mp3", against: base)?.absoluteString, "https://a.example/e.mp3")
        XCTAssertNil(FeedText.resolve("file:///etc/passwd", against: base))
        XCTAssertNil(FeedText.resolve("javascript:alert(1)", against: base))
    }

    func testEpisodeNamesSortByDateAndNeverClash() {
        var bonus = PodcastEpisode(id: "1", title: "Bonus / Extra", url: URL(string: "https://x.example/a?b=c")!)
        bonus.published = Date(timeIntervalSince1970: 1_796_194_800)
        var again = bonus
        again.id = "2"
        again.title = "bonus / extra"
        again.type = "audio/mp4"
        var hidden = PodcastEpisode(id: "3", title: "...secret\u{7}", url: URL(string: "https://x.example/s.opus")!)
        hidden.published = nil
        XCTAssertEqual(EpisodeNames.names(for: [bonus, again, hidden]),
            ["2026-12-02 - Bonus Extra.mp3", "2026-12-02 - bonus extra (2).m4a", "undated - secret.opus"])
    }
}
