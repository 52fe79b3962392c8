@testable import NimbusStorage
import XCTest

/// Share addresses as people and MPD write them, and the listings SFTP and FTP servers send.
final class ShareParsingTests: XCTestCase {
    func testAnAddressLosesItsPasswordAtOnce() throws {
        let url = try XCTUnwrap(ShareURL("smb://bob:s%40cret:x@nas.local:4450/Music/Jazz%20Club/?workgroup=HOME"))
        XCTAssertEqual(url.scheme, "smb")
        XCTAssertEqual(url.user, "bob")
        XCTAssertEqual(url.password, "s@cret:x")
        XCTAssertEqual(url.host, "nas.local")
        XCTAssertEqual(url.port, 4450)
        XCTAssertEqual(url.path, "/Music/Jazz Club")
        XCTAssertEqual(url.withoutPassword, "smb://bob@nas.local:4450/Music/Jazz%20Club?workgroup=HOME")
        XCTAssertEqual(url.shown, "smb://bob@nas.local:4450/Music/Jazz%20Club")
        XCTAssertEqual(url.location("A/b c.flac"), "smb://nas.local:4450/Music/Jazz%20Club/A/b%20c.flac", "no credentials in a library URL")
        XCTAssertEqual(ShareURL("sftp://[::1]:2222/srv")?.authority, "[::1]:2222")
        XCTAssertEqual(ShareURL("ftp://host")?.path, "/")
        XCTAssertEqual(ShareURL("nfs://nas/export/music?version=4")?.withoutPassword, "nfs://nas/export/music?version=4")
        XCTAssertEqual(ShareURL("SFTP://u@h/x")?.scheme, "sftp")
        XCTAssertEqual(ShareURL("sftp://u@h/x?fingerprint=SHA256:abc%2Bd&password=p")?.withoutPassword, "sftp://u@h/x?fingerprint=SHA256:abc%2Bd")
        for bad in ["smb://", "smb://host:99999/x", "smb://host:port/x", "udisks://sdb1/x", "http://host/", "smb://:pw@host/", "smb:/host"] {
            XCTAssertNil(ShareURL(bad), bad)
        }
    }

    func testLongListingsOfSFTPServers() {
        let now: Int64 = 1_796_212_800  // 2026-12-02 12:00 UTC
        XCTAssertEqual(
            LongListing.parse("-rw-r--r--    1 bob      bob       1234567 Nov 30 21:05 01 - Blue  in Green.flac", now: now),
            ListedEntry(name: "01 - Blue  in Green.flac", kind: .file, size: 1_234_567, modified: 1_796_072_700))
        XCTAssertEqual(LongListing.parse("drwxr-xr-x    3 bob      bob          4096 Mar  5  2019 Old", now: now)?.modified, 1_551_744_000)
        XCTAssertEqual(LongListing.parse("lrwxrwxrwx    1 bob      bob             1 Dec  1 10:00 loop -> .", now: now)?.name, "loop")
        XCTAssertEqual(LongListing.parse("-rw-r--r--    1 bob      bob             1 Dec 31 10:00 x", now: now)?.modified, 1_767_175_200, "a date ahead is last year's")
        for bad in ["total 12", "", "-rw-r--r-- 1 bob bob many Dec 1 10:00 x", "-rw-r--r-- 1 bob bob 1 Foo 1 10:00 x", "crw-r--r-- 1 a b 1 Dec 1 10:00 tty"] {
            XCTAssertNil(LongListing.parse(bad, now: now), bad)
        }
    }

    func testMachineListingsOfFTPServers() {
        XCTAssertEqual(
            MachineListing.parse("modify=20261202114817;perm=r;size=81259;type=file;unique=fe00gf780d1; 01 - Intro.flac"),
            ListedEntry(name: "01 - Intro.flac", kind: .file, size: 81_259, modified: 1_796_212_097, unique: "fe00gf780d1"))
        XCTAssertEqual(MachineListing.parse("Type=dir;Modify=20200101000000; Albums")?.kind, .directory, "facts are case-insensitive")
        XCTAssertNil(MachineListing.parse("type=cdir;modify=20200101000000; ."))
        XCTAssertNil(MachineListing.parse("type=file;size=1;"))
        XCTAssertEqual(MachineListing.parse("type=file;size=x;modify=garbage; f")?.size, 0)
        XCTAssertNotNil(ListedEntry(name: "a", kind: .directory, size: 0, modified: 0, unique: "fe00").inode)
    }

    func testHostKeyFingerprintsReadAsOpenSSHPrintsThem() {
        XCTAssertEqual(HostKeys.fingerprint([]), "SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU")
        let blob: [UInt8] = [0, 0, 0, 11] + Array("ssh-ed25519".utf8) + [0, 0, 0, 32] + Array(repeating: 7, count: 32)
        XCTAssertEqual(HostKeys.type(blob), "ssh-ed25519")
        XCTAssertNil(HostKeys.type([0, 0, 0, 200, 1]))
        XCTAssertEqual(HostKeys.hostField(ShareURL("sftp://u@h:2222/")!), "[h]:2222")
        XCTAssertEqual(HostKeys.hostField(ShareURL("sftp://u@h/")!), "h")
    }
}
