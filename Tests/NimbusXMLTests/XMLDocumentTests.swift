import NimbusXML
import XCTest

final class XMLDocumentTests: XCTestCase {
    private func parse(_ text: String, limits: XMLDocument.Limits = XMLDocument.Limits()) throws -> XMLElement {
        try XMLDocument.parse(Array(text.utf8), limits: limits)
    }

    func testElementsAreNamedByNamespaceNotPrefix() throws {
        let root = try parse(
            """
            <?xml version="1.0"?><D:multistatus xmlns:D="DAV:"><D:response><lp1:href xmlns:lp1="DAV:">/a%20b</lp1:href>\
            </D:response><response xmlns="DAV:"><href>/c</href></response></D:multistatus>
            """)
        XCTAssertEqual(root.namespace, "DAV:")
        XCTAssertEqual(root.all("response", namespace: "DAV:").compactMap { $0.value("href", namespace: "DAV:") }, ["/a%20b", "/c"])
    }

    func testTextEntitiesCDATAAndAttributes() throws {
        let root = try parse(
            "<a x=\"1 &amp; 2\" xmlns:i=\"urn:i\" i:y=\"z\"><b>&lt;p&gt; &#1025;&#x451; &quot;q&apos;</b><c><![CDATA[<i>raw</i> & more]]></c></a>")
        XCTAssertEqual(root.attributes["x"], "1 & 2")
        XCTAssertEqual(root.attributes["urn:i y"], "z")
        XCTAssertEqual(root.value("b"), "<p> Ёё \"q'")
        XCTAssertEqual(root.value("c"), "<i>raw</i> & more")
    }

    func testEntityDeclarationsAreRefusedBeforeAnyExpansion() {
        let bomb = """
            <?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">\
            <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">]><lolz>&lol2;</lolz>
            """
        XCTAssertThrowsError(try parse(bomb)) { XCTAssertTrue("\($0)".contains("entities"), "\($0)") }
        let external = """
            <?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>
            """
        XCTAssertThrowsError(try parse(external))
        // A reference to an undeclared entity is a plain error.
        XCTAssertThrowsError(try parse("<r>&nbsp;</r>"))
    }

    func testLimitsRefuseDeepAndLargeDocuments() {
        var limits = XMLDocument.Limits()
        limits.depth = 10
        XCTAssertThrowsError(try parse(String(repeating: "<a>", count: 11) + String(repeating: "</a>", count: 11), limits: limits))
        XCTAssertNoThrow(try parse(String(repeating: "<a>", count: 10) + String(repeating: "</a>", count: 10), limits: limits))
        limits = XMLDocument.Limits()
        limits.elements = 100
        XCTAssertThrowsError(try parse("<r>" + String(repeating: "<i/>", count: 100) + "</r>", limits: limits))
        limits = XMLDocument.Limits()
        limits.text = 1000
        XCTAssertThrowsError(try parse("<r>" + String(repeating: "x", count: 1001) + "</r>", limits: limits))
    }

    func testDeclaredSingleByteEncodingsAreDecoded() throws {
        // "Ёлка" in windows-1251 and in KOI8-R, "Café" in ISO-8859-1.
        let cp1251: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"windows-1251\"?><t>".utf8) + [0xA8, 0xEB, 0xEA, 0xE0] + Array("</t>".utf8)
        XCTAssertEqual(try XMLDocument.parse(cp1251).text, "Ёлка")
        let koi8: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"KOI8-R\"?><t>".utf8) + [0xB3, 0xCC, 0xCB, 0xC1] + Array("</t>".utf8)
        XCTAssertEqual(try XMLDocument.parse(koi8).text, "Ёлка")
        let latin1: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><t>Caf".utf8) + [0xE9] + Array("</t>".utf8)
        XCTAssertEqual(try XMLDocument.parse(latin1).text, "Café")
        XCTAssertThrowsError(try XMLDocument.parse(Array("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><t/>".utf8)))
        XCTAssertThrowsError(try XMLDocument.parse(Array("<?xml version=\"1.0\" encoding=\"no-such-charset\"?><t/>".utf8)))
    }

    func testBrokenDocumentsFailWithALine() {
        for text in ["", "<a>", "<a></b>", "not xml", "<a>\n<b>\n</a>", "<a/><b/>"] {
            XCTAssertThrowsError(try parse(text), text)
        }
        XCTAssertThrowsError(try parse("<a>\n<b>\n</a>")) { XCTAssertTrue("\($0)".hasPrefix("line 3"), "\($0)") }
    }
}
