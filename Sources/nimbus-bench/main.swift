import Foundation
import TestSupport

// `make bench`: runs Debian's MPD and this build's nimbusd side by side on the same machine and
// prints each figure with the ratio ours/MPD. Never fails on a number; it only reports.

let arguments = CommandLine.arguments.dropFirst()
let quick = arguments.contains("--quick")
var report = BenchReport()

do {
    let pair = try DaemonPair()
    ProtocolBenchmarks(pair: pair, quick: quick).run(into: &report)
} catch {
    FileHandle.standardError.write(Data("nimbus-bench: \(error)\n".utf8))
    exit(1)
}
report.print()
