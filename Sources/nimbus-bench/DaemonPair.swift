import Foundation
import Glibc
import NimbusHarness

/// Both daemons started with the same generated config on their own ports.
final class DaemonPair {
    let nimbus: ServerProcess
    let mpd: ServerProcess

    init(nimbus: ServerProcess, mpd: ServerProcess) {
        self.nimbus = nimbus
        self.mpd = mpd
    }

    /// Both daemons share core 1; `make bench` runs this process on core 0, so every round trip
    /// crosses cores the same way for both (left to the scheduler, runs differed threefold).
    init(config: String = "max_connections \"200\"") throws {
        let cpu = sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 ? 1 : 0
        mpd = try ServerProcess(.mpd, config: config, cpu: cpu)
        nimbus = try ServerProcess(.nimbus, config: config, cpu: cpu)
    }

    /// Runs `body` for each daemon in alternating rounds after a warm-up round and returns the
    /// median per daemon as (nimbus, mpd): whichever runs first otherwise pays for cold caches
    /// and CPU frequency ramp-up, which swung single runs by a factor of three.
    func measure(rounds: Int = 3, _ body: (ServerProcess) throws -> Double) rethrows -> (Double, Double) {
        _ = try body(mpd)
        _ = try body(nimbus)
        var ours: [Double] = []
        var theirs: [Double] = []
        for round in 0..<rounds {
            if round % 2 == 0 {
                theirs.append(try body(mpd))
                ours.append(try body(nimbus))
            } else {
                ours.append(try body(nimbus))
                theirs.append(try body(mpd))
            }
        }
        return (ours.sorted()[rounds / 2], theirs.sorted()[rounds / 2])
    }
}

/// Resource use of a process read from /proc.
enum ProcessStats {
    /// CPU time of all threads in microseconds, from schedstat's nanosecond counters (the
    /// tick-based /proc/PID/stat is too coarse for per-command figures).
    static func cpuMicroseconds(_ pid: Int32) -> Double {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var total = 0.0
        for task in tasks {
            guard let line = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8) else { continue }
            total += Double(line.split(separator: " ")[0]) ?? 0
        }
        return total / 1000
    }

    /// VmRSS and RssAnon (the heap and other private memory, what a library costs) in KiB.
    static func memory(_ pid: Int32) -> (rss: Double, anonymous: Double) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return (0, 0) }
        var rss = 0.0, anonymous = 0.0
        for line in status.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count > 1 else { continue }
            if words[0] == "VmRSS:" { rss = Double(words[1]) ?? 0 }
            if words[0] == "RssAnon:" { anonymous = Double(words[1]) ?? 0 }
        }
        return (rss, anonymous)
    }

    static func residentKiB(_ pid: Int32) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Double(line.split(separator: " ")[1]) ?? 0
        }
        return 0
    }
}

/// Wall-clock seconds of `body`.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}
