import Foundation
import NimbusHarness

// `make bench`: runs Debian's MPD and this build's nimbusd side by side on the same machine and
// prints each figure with the ratio ours/MPD. Never fails on a number; it only reports.

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "floor-server", let port = arguments.dropFirst().first.flatMap({ Int($0) }) {
    FloorServer.serve(port: port)
}
let quick = arguments.contains("--quick")
var report = BenchReport()

let sections = Set(arguments.filter { !$0.hasPrefix("-") && Int($0) == nil })
func wanted(_ name: String) -> Bool { sections.isEmpty || sections.contains(name) }
var notes: [String] = ["nimbusd under test: \(ServerProcess.nimbusExecutable)"]

do {
    if wanted("protocol") {
        ProtocolBenchmarks(pair: try DaemonPair(), quick: quick).run(into: &report)
    }
    if wanted("library") {
        try LibraryBenchmarks(tracks: quick ? 1000 : 5000, quick: quick).run(into: &report)
    }
    if wanted("playback") {
        notes += try PlaybackBenchmarks(quick: quick).run(into: &report)
    }
    if wanted("cloud") {
        notes += try CloudBenchmarks(quick: quick).run(into: &report)
    }
    if wanted("share") {
        try NetworkBenchmarks(quick: quick).runShare(into: &report)
    }
    if wanted("smb") {
        notes += try ShareBenchmarks(quick: quick).run(into: &report)
    }
    if wanted("seek") {
        notes += try NetworkBenchmarks(quick: quick).runSeek(into: &report)
    }
    if wanted("httpd") {
        notes += try HTTPDBenchmarks(quick: quick).run(into: &report)
    }
    if wanted("offline") {
        notes += try OfflineBenchmarks(quick: quick).run(into: &report)
    }
    if wanted("web") {
        notes += try WebBenchmarks(quick: quick).run()
    }
    if wanted("scale") {
        // `--songs N` for one corpus; by default the usual 5,000 and the large 50,000.
        let given = arguments.firstIndex(of: "--songs").flatMap { arguments.index(after: $0) < arguments.endIndex ? Int(arguments[arguments.index(after: $0)]) : nil }
        for songs in given.map({ [$0] }) ?? (quick ? [1000] : [5000, 50_000]) {
            try ScaleBenchmarks(songs: songs, quick: quick).run(into: &report)
        }
    }
    if wanted("subsonic") {
        let given = arguments.firstIndex(of: "--songs").flatMap { arguments.index(after: $0) < arguments.endIndex ? Int(arguments[arguments.index(after: $0)]) : nil }
        for songs in given.map({ [$0] }) ?? (quick ? [1000] : [5000, 50_000]) {
            notes += try SubsonicBenchmarks(songs: songs, quick: quick).run(into: &report)
        }
    }
    if wanted("transcode") {
        notes += try TranscodeBenchmarks(quick: quick).run(into: &report)
    }
    if wanted("analysis") {
        notes += try AnalysisBenchmarks(quick: quick).run(into: &report)
    }
    if wanted("sound") {
        notes += try SoundBenchmarks(quick: quick).run(into: &report)
    }
    if wanted("large") && !quick {
        notes += try LargeLibraryBenchmark(tracks: 50_000).run()
    }
} catch {
    FileHandle.standardError.write(Data("nimbus-bench: \(error)\n".utf8))
    exit(1)
}
report.print()
for note in notes { print(note) }
