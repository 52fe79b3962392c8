import Foundation
import NimbusHarness

/// What the sound tests share: a daemon whose only output is an ALSA capture (`capture`,
/// no mixer, so nothing but the chain under test touches the samples) at `format`, serving
/// the `.flac` songs of `music`, its database read before it is handed back.
func startCapturing(
    _ music: TemporaryDirectory, format: String, config: String = "", name: String
) throws -> (daemon: ServerProcess, capture: ALSACapture, client: LineClient) {
    let capture = ALSACapture(in: music, name: name)
    let daemon = try ServerProcess(
        .nimbus, config: ALSACapture.outputBlock(format: format, mixer: "none") + "\n" + config, musicDirectory: music.path,
        nullOutput: false, environment: capture.environment)
    try daemon.waitForDatabase(songs: try FileManager.default.contentsOfDirectory(atPath: music.path).filter { $0.hasSuffix(".flac") }.count)
    return (daemon, capture, try daemon.connect())
}
