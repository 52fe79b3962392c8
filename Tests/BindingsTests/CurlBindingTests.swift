import CCurl
import Foundation
import NimbusHarness
import XCTest

/// Exercises the libcurl shim's typed setopt/getinfo wrappers against the real library.
final class CurlBindingTests: XCTestCase {
    private final class Sink {
        var bytes: [UInt8] = []
    }

    func testRangedReadOfAFileURLThroughTheWriteCallback() throws {
        let directory = TemporaryDirectory()
        let path = directory.write("data.bin", String(repeating: "0123456789", count: 100))
        curl_global_init(Int(CURL_GLOBAL_ALL))
        let handle = try XCTUnwrap(curl_easy_init())
        defer { curl_easy_cleanup(handle) }
        let sink = Sink()
        XCTAssertEqual(ccurl_setopt_str(handle, CURLOPT_URL, "file://" + path), CURLE_OK)
        XCTAssertEqual(ccurl_setopt_str(handle, CURLOPT_RANGE, "10-24"), CURLE_OK)
        XCTAssertEqual(ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1), CURLE_OK)
        XCTAssertEqual(ccurl_setopt_ptr(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque()), CURLE_OK)
        XCTAssertEqual(
            ccurl_setopt_write_cb(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
                let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
                sink.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size * count))
                return size * count
            }, CURLE_OK)
        XCTAssertEqual(curl_easy_perform(handle), CURLE_OK)
        XCTAssertEqual(String(decoding: sink.bytes, as: UTF8.self), "012345678901234")
        var downloaded: curl_off_t = 0
        XCTAssertEqual(ccurl_getinfo_offt(handle, CURLINFO_SIZE_DOWNLOAD_T, &downloaded), CURLE_OK)
        XCTAssertEqual(downloaded, 15)
    }

    func testVersionReportsSSLAndHTTP2() {
        let info = ccurl_version_info()!.pointee
        XCTAssertNotNil(info.ssl_version)
        XCTAssertNotEqual(info.features & CURL_VERSION_HTTP2, 0)
    }
}
