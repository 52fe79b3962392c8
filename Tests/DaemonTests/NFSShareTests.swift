import Foundation
import NimbusHarness
import XCTest

/// An NFS export served by nfs-ganesha (NFSv4, port 2049) inside a private network namespace
/// with only loopback, so the test owns the port and nothing leaves it; the daemon runs in the
/// same namespace, driven by `Scripts/nfs_share.py`, and plays into ALSA's file plugin.
final class NFSShareTests: NetworkShareTestCase {
    func testAnNFSExportIsMountedPlayedSoughtAndKeptOffline() throws {
        try XCTSkipUnless(geteuid() == 0, "a network namespace needs root")
        try XCTSkipUnless(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/ganesha.nfsd") && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
                && FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/ganesha/libfsalvfs.so"),
            "nfs-ganesha (with its VFS backend) is not installed (scripts/install-deps)")
        let share = try library()
        let (_, _, local) = try daemon(songs: 2, music: share)
        let localRecord = try record(local, "Band/Album/02.flac")
        let directory = TemporaryDirectory("nimbus-nfs")
        keep.append(directory)
        try FileManager.default.createDirectory(atPath: directory.file("recovery"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file("out"), withIntermediateDirectories: true)
        let ganesha = directory.write("ganesha.conf", """
            NFS_CORE_PARAM {
                NFS_Port = 2049;
                Protocols = 4;
                Enable_RQUOTA = false;
                Enable_NLM = false;
            }
            NFSV4 {
                RecoveryBackend = fs;
                RecoveryRoot = \(directory.file("recovery"));
                Graceless = true;
            }
            EXPORT {
                Export_Id = 1;
                Path = \(share.path);
                Pseudo = /music;
                Access_Type = RO;
                Squash = No_Root_Squash;
                SecType = sys;
                FSAL { Name = VFS; }
            }
            """)
        let music = TemporaryDirectory("nimbus-nfs-local")
        keep.append(music)
        let capture = ALSACapture(in: music)
        let port = freePort()
        let config = directory.write("nimbus.conf", """
            music_directory "\(music.path)"
            db_file "\(directory.path)/db"
            state_file "\(directory.path)/state"
            bind_to_address "127.0.0.1"
            port "\(port)"
            zeroconf_enabled "no"
            web {
                enabled "no"
            }
            \(ALSACapture.outputBlock())
            """)
        let driver = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/nfs_share.py").path
        let script = """
            ip link set lo up || exit 3
            ganesha.nfsd -F -L "$2/ganesha.log" -f "$3" -p "$2/ganesha.pid" &
            server=$!
            for _ in $(seq 100); do ss -ltn | grep -q ':2049 ' && break; sleep 0.1; done
            ALSA_CONFIG_PATH="$5" "$0" --no-daemon "$1" 2>"$2/stderr" &
            daemon=$!
            for _ in $(seq 100); do /usr/bin/python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])))" "$6" 2>/dev/null && break; sleep 0.1; done
            /usr/bin/python3 "$4" "$6" $server "$7" "$2/out"
            kill -TERM $daemon $server 2>/dev/null
            wait $daemon
            """
        let output = try runTool("/usr/bin/unshare", [
            "-n", "/bin/sh", "-c", script, ServerProcess.buildDirectory + "/nimbusd", config, directory.path, ganesha, driver,
            capture.configPath, String(port), capture.outputPath,
        ], includingErrors: true)
        let log = (try? String(contentsOfFile: directory.file("stderr"), encoding: .utf8)) ?? ""
        let json = output.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? ""
        let result = try XCTUnwrap(try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(output) \(log)")
        XCTAssertEqual(result["missing"] as? [String], ["ACK [50@0] {mount} nfs://127.0.0.1/nowhere: no such file or folder"], log)
        XCTAssertEqual(result["mount"] as? [String], ["OK"], log)
        XCTAssertEqual(result["listmounts"] as? [String], ["mount: ", "mount: nas", "storage: nfs://127.0.0.1/music?version=4", "OK"])
        XCTAssertEqual(result["indexed"] as? Bool, true)
        let record = (result["record"] as? [String] ?? []).filter { !$0.hasPrefix("file: ") && !$0.hasPrefix("Last-Modified: ") && !$0.hasPrefix("Added: ") }
        XCTAssertEqual(record, localRecord, "the same tags as the local library")
        func frames(_ name: String) -> [Int] {
            AudioFixtures.rampIndices((try? Array(Data(contentsOf: URL(fileURLWithPath: directory.file("out/" + name))))) ?? [])
        }
        XCTAssertTrue(frames("first.raw") == Array(0..<88_200), "over NFS, every sample exact")
        XCTAssertTrue(frames("seek.raw") == Array(44_100..<66_150), "a seek over NFS")
        XCTAssertEqual(result["pinned"] as? Bool, true)
        XCTAssertEqual(result["serverGone"] as? Bool, true)
        XCTAssertTrue(frames("offline.raw") == Array(0..<66_150), "pinned, played with ganesha gone")
        XCTAssertEqual(result["ping"] as? [String], ["OK"], "the daemon survived the server's end")
    }
}
