import NimbusInput
import XCTest

@testable import NimbusStorage

/// Errors a user reads in `status` and the log name the account once.
final class CloudErrorTests: XCTestCase {
    func testTheAccountIsNamedOnce() {
        XCTAssertEqual(
            StorageError.remote("dropbox", RemoteError(.transient, "dropbox: Couldn't connect to server")).message,
            "dropbox: Couldn't connect to server")
        XCTAssertEqual(StorageError.remote("dropbox", RemoteError(.notFound, "not found")).message, "dropbox: not found")
    }
}
