import NimbusSupport
import XCTest

final class MD5Tests: XCTestCase {
    /// RFC 1321's test suite, and a message crossing the 56-byte padding boundary.
    func testTheRFCVectors() {
        let vectors = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
            (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
            // The Subsonic documentation's example: password "sesame", salt "c19b2d".
            ("sesamec19b2d", "26719a1196d2a940705a59634eb18eab"),
        ]
        for (message, digest) in vectors { XCTAssertEqual(MD5.hex(Array(message.utf8)), digest, message) }
    }
}
