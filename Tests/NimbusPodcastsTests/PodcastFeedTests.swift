import Foundation
import NimbusPodcasts
import XCTest

/// Feeds as the internet writes them: every quirk the issue lists, each in a feed of its own
/// or all together, parsed into shows and episodes; and what must be refused.
final class PodcastFeedTests: XCTestCase {
    private let address = URL(string: "https://feeds.example.com/shows/tea/feed.xml")!

    private func parse(_ text: String) throws -> PodcastFeed { try PodcastFeed.parse(Array(text.utf8), address: address) }

    static let quirky = """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
        <channel>
          <title>Tea &amp; Talk</title>
          <itunes:author>Ann Author</itunes:author>
          <itunes:image href="/art/show.jpg"/>
          <description><![CDATA[<p>A show about <b>tea</b>.</p>]]></description>
          <item>
            <title>Episode 3: Oolong</title>
            <guid isPermaLink="false">tea-3</guid>
            <pubDate>Wed, 02 Dec 2026 07:00:00 +0000</pubDate>
            <itunes:duration>1:02:03</itunes:duration>
            <itunes:episode>3</itunes:episode>
            <description><![CDATA[<p>Oolong&nbsp;and <a href="x">friends</a>.<br/>Second line &#8212; done.</p>]]></description>
            <enclosure url="media/3.mp3" type="audio/mpeg"/>
          </item>
          <item>
            <title>Episode 2: Green</title>
            <guid>tea-2</guid>
            <pubDate>Tue, 1 Dec 2026 07:00:00 GMT</pubDate>
            <itunes:duration>3605</itunes:duration>
            <itunes:author>Guest Host</itunes:author>
            <enclosure url="https://cdn.example.com/2.m4a?token=1" length="12345" type="audio/mp4"/>
          </item>
          <item>
            <title>Episode 2 again</title>
            <guid>tea-2</guid>
            <enclosure url="https://cdn.example.com/2b.mp3" length="0"/>
          </item>
          <item>
            <title>Episode 1</title>
            <pubDate>Mon, 30 Nov 2026 07:00:00 EST</pubDate>
            <itunes:duration>59:30</itunes:duration>
            <enclosure url="https://cdn.example.com/1.mp3" length="999"/>
          </item>
          <item><title>Trailer without audio</title></item>
          <item><title>Bad link</title><enclosure url="javascript:alert(1)"/></item>
        </channel>
        </rss>
        """

    func testAFeedWithEveryQuirk() throws {
        let feed = try parse(Self.quirky)
        XCTAssertEqual(feed.title, "Tea & Talk")
        XCTAssertEqual(feed.author, "Ann Author")
        XCTAssertEqual(feed.image?.absoluteString, "https://feeds.example.com/art/show.jpg", "relative to the feed")
        XCTAssertEqual(feed.description, "A show about tea.")
        XCTAssertEqual(feed.episodes.map(\.title), ["Episode 3: Oolong", "Episode 2: Green", "Episode 2 again", "Episode 1"],
            "items without audio, or with an address that is not http(s), are no episodes")
        let three = feed.episodes[0]
        XCTAssertEqual(three.url.absoluteString, "https://feeds.example.com/shows/tea/media/3.mp3")
        XCTAssertNil(three.length, "no length given")
        XCTAssertEqual(three.duration, 3723)
        XCTAssertEqual(three.number, 3)
        XCTAssertEqual(three.author, "Ann Author", "the channel's author stands in")
        XCTAssertEqual(three.description, "Oolong and friends.\nSecond line — done.")
        XCTAssertEqual(three.published, Date(timeIntervalSince1970: 1_796_194_800))
        XCTAssertEqual(feed.episodes[1].author, "Guest Host")
        XCTAssertEqual(feed.episodes[1].length, 12345)
        XCTAssertEqual(feed.episodes[1].duration, 3605)
        XCTAssertNil(feed.episodes[2].length, "length 0 means unknown")
        XCTAssertNotEqual(feed.episodes[1].id, feed.episodes[2].id, "a duplicate guid is told apart by its enclosure")
        XCTAssertEqual(feed.episodes[3].id, "https://cdn.example.com/1.mp3", "no guid: the enclosure's address")
        XCTAssertEqual(feed.episodes[3].duration, 3570)
        XCTAssertEqual(feed.episodes[3].published, Date(timeIntervalSince1970: 1_796_040_000), "07:00 EST is 12:00 UTC")
    }

    func testDeclaredEncodingsAreRead() throws {
        var bytes = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss><channel><title>Caf".utf8)
        bytes.append(0xE9)
        bytes += Array("</title><item><title>Na".utf8) + [0xEF] + Array("ve</title><enclosure url=\"http://x.example/a.mp3\"/></item></channel></rss>".utf8)
        let feed = try PodcastFeed.parse(bytes, address: address)
        XCTAssertEqual(feed.title, "Café")
        XCTAssertEqual(feed.episodes.first?.title, "Naïve")
    }

    func testAtomFeedsWithEnclosures() throws {
        let feed = try parse("""
            <feed xmlns="http://www.w3.org/2005/Atom"><title>Atom Show</title><author><name>Bo</name></author>
            <entry><id>urn:1</id><title>First</title><published>2026-11-30T10:00:00Z</published>
            <link rel="enclosure" href="a.ogg" type="audio/ogg" length="10"/></entry></feed>
            """)
        XCTAssertEqual(feed.title, "Atom Show")
        XCTAssertEqual(feed.author, "Bo")
        XCTAssertEqual(feed.episodes.first?.url.absoluteString, "https://feeds.example.com/shows/tea/a.ogg")
        XCTAssertEqual(feed.episodes.first?.published, Date(timeIntervalSince1970: 1_796_032_800))
    }

    func testWhatIsNotAFeedIsAClearError() {
        let bomb = """
            <?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
            <rss><channel><title>&lol2;</title></channel></rss>
            """
        XCTAssertThrowsError(try parse(bomb), "entities are never expanded")
        let external = "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><rss><channel><title>&x;</title></channel></rss>"
        XCTAssertThrowsError(try parse(external))
        XCTAssertThrowsError(try parse("<!DOCTYPE html><html><body>Moved</body></html>")) { error in
            XCTAssertEqual((error as? PodcastFeed.Failure)?.description, "the address serves a web page, not a feed")
        }
        XCTAssertThrowsError(try parse("<opml/>")) { error in
            XCTAssertEqual((error as? PodcastFeed.Failure)?.description, "not a feed (the document is <opml>)")
        }
        XCTAssertThrowsError(try parse("<rss><channel><title>cut sh"))
        XCTAssertThrowsError(try PodcastFeed.parse([UInt8](repeating: 32, count: PodcastFeed.maximumBytes + 1), address: address))
    }

    func testTenThousandEpisodesAndNoMore() throws {
        var text = "<rss><channel><title>Big</title>"
        for index in 0..<10_050 {
            text += "<item><guid>\(index)</guid><title>E\(index)</title><enclosure url=\"http://x.example/\(index).mp3\" length=\"1\"/></item>"
        }
        text += "</channel></rss>"
        let feed = try parse(text)
        XCTAssertEqual(feed.episodes.count, PodcastFeed.maximumEpisodes)
    }
}

/// Titles and descriptions as feeds in the wild escape them (issue 32).
final class EscapedFeedTextTests: XCTestCase {
    private let address = URL(string: "https://feeds.example.com/feed.xml")!

    func testEscapedTitlesKeepTheirTextAndEscapedDescriptionsBecomePlainText() throws {
        let feed = try PodcastFeed.parse(
            Array(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <rss version="2.0"><channel><title>Show &lt;Live&gt;</title>
                  <item><title>&lt;b&gt;Bold&lt;/b&gt; &amp; brave</title><guid>1</guid>
                    <description>&lt;p&gt;Hello &amp;amp; &lt;a href="x"&gt;welcome&lt;/a&gt;.&lt;br/&gt;Line two&lt;/p&gt;</description>
                    <enclosure url="https://cdn.example.com/1.mp3" type="audio/mpeg"/></item>
                  <item><title>Tom &lt;Jerry&gt; &amp; friends</title><guid>2</guid>
                    <description><![CDATA[<p>Hello &amp; <a href="x">welcome</a>.<br/>Line two</p>]]></description>
                    <enclosure url="https://cdn.example.com/2.mp3" type="audio/mpeg"/></item>
                  <item><title>a &lt; b</title><guid>3</guid><enclosure url="https://cdn.example.com/3.mp3"/></item>
                </channel></rss>
                """.utf8), address: address)
        XCTAssertEqual(feed.title, "Show <Live>")
        XCTAssertEqual(feed.episodes.map(\.title), ["<b>Bold</b> & brave", "Tom <Jerry> & friends", "a < b"], "decoded once, never parsed as markup")
        XCTAssertEqual(feed.episodes[0].description, "Hello & welcome.\nLine two")
        XCTAssertEqual(feed.episodes[1].description, feed.episodes[0].description, "escaped or CDATA: the same plain text")
    }
}
