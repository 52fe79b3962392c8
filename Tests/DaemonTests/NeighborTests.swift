import Foundation
import NimbusHarness
import XCTest

/// `listneighbors` as a client's "network" view uses it: shares announced by python3-zeroconf
/// (as Samba's Avahi integration, a NAS or a Mac would) inside a private network namespace
/// with only loopback, so no multicast leaves the test.
final class NeighborTests: XCTestCase {
    func testSharesAnnouncedOnTheLANAreListedInMPDsFormat() throws {
        try XCTSkipUnless(geteuid() == 0, "a network namespace needs root")
        try XCTSkipUnless(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip")
                && (try? runTool("/usr/bin/python3", ["-c", "import zeroconf"])) != nil,
            "unshare, ip or python3-zeroconf is missing (scripts/install-deps)")
        let directory = TemporaryDirectory("nimbus-neighbors")
        let port = freePort()
        let config = directory.write(
            "nimbus.conf",
            """
            music_directory "\(directory.path)"
            db_file "\(directory.path)/db"
            state_file "\(directory.path)/state"
            bind_to_address "127.0.0.1"
            port "\(port)"
            audio_output {
                type "null"
                name "null"
            }
            web {
                enabled "no"
            }
            """)
        let announce = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/zeroconf_shares.py").path
        let script = """
            ip link set lo up && ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo || exit 3
            "$0" --no-daemon "$1" 2>"$2/stderr" &
            daemon=$!
            for _ in $(seq 100); do /usr/bin/python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])))" "$4" 2>/dev/null && break; sleep 0.1; done
            /usr/bin/python3 "$3" "$4"
            kill -TERM $daemon
            wait $daemon
            """
        let output = try runTool(
            "/usr/bin/unshare", ["-n", "/bin/sh", "-c", script, ServerProcess.buildDirectory + "/nimbusd", config, directory.path, announce, String(port)])
        XCTAssertEqual(output.split(separator: "\n").map(String.init), [
            "neighbor: sftp://127.0.0.1:2222/", "name: Backup box",
            "neighbor: smb://127.0.0.1/", "name: Living room NAS",
            "neighbor: ftp://127.0.0.1/", "name: Old router",
            "neighbor: http://127.0.0.1:8080/dav/", "name: Photo frame",
            "OK",
        ], "every share service, none of the others: \((try? String(contentsOfFile: directory.file("stderr"), encoding: .utf8)) ?? "")")
    }
}
