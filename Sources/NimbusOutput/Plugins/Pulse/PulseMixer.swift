import CPulse
import NimbusModel

/// MPD's pulse mixer: `setvol` moves the stream's own volume on the server (what
/// `pactl list sink-inputs` and a desktop's volume control show), not the samples. Without a
/// stream (stopped) the last volume set is remembered and given to the next stream.
final class PulseMixer: HardwareMixer {
    private let connection: PulseConnection

    init(connection: PulseConnection) { self.connection = connection }

    /// libpulse's linear volume: 100 % is PA_VOLUME_NORM (0x10000); MPD scales the same way.
    static func pulseVolume(_ percent: Int) -> pa_volume_t {
        pa_volume_t((Double(max(0, min(100, percent))) * 65536 / 100).rounded())
    }

    var volume: Int? {
        connection.locked { () -> Int? in
            guard let stream = connection.stream, let context = connection.context,
                pa_stream_get_state(stream) == PA_STREAM_READY
            else { return connection.requestedVolume }
            final class Answer {
                var volume: pa_volume_t?
                let connection: PulseConnection
                init(_ connection: PulseConnection) { self.connection = connection }
            }
            let box = Unmanaged.passRetained(Answer(connection))
            defer { box.release() }
            connection.finish(
                pa_context_get_sink_input_info(
                    context, pa_stream_get_index(stream),
                    { _, info, _, user in
                        let answer = Unmanaged<Answer>.fromOpaque(user!).takeUnretainedValue()
                        if let info {
                            var volume = info.pointee.volume
                            answer.volume = pa_cvolume_avg(&volume)
                        }
                        answer.connection.signal()
                    }, box.toOpaque()))
            return box.takeUnretainedValue().volume.map { Int((Double($0) * 100 / 65536).rounded()) }
        }
    }

    func setVolume(_ percent: Int) -> Bool {
        connection.locked { () -> Bool in
            connection.requestedVolume = percent
            guard let stream = connection.stream, let context = connection.context,
                pa_stream_get_state(stream) == PA_STREAM_READY, let spec = pa_stream_get_sample_spec(stream)
            else { return true }
            var volume = pa_cvolume()
            pa_cvolume_set(&volume, UInt32(spec.pointee.channels), Self.pulseVolume(percent))
            connection.finish(
                pa_context_set_sink_input_volume(
                    context, pa_stream_get_index(stream), &volume,
                    { _, _, loop in pa_threaded_mainloop_signal(OpaquePointer(loop), 0) }, connection.signalTarget))
            return true
        }
    }
}

/// `type "pulse"` with MPD's settings: `server` (default: the user's server), `sink` (default:
/// the default sink), `media_role` (`music`), and the output's `name` as the stream's name; a
/// hardware mixer (MPD's default `mixer_type`) is the stream's volume on the server.
public struct PulseOutputPlugin: OutputPlugin {
    public let type = "pulse"
    public init() {}

    public func configure(_ configuration: OutputConfiguration) throws(OutputError) -> OutputDefinition {
        let settings = configuration.settings
        let connection = PulseConnection(server: settings["server"].flatMap { $0.isEmpty ? nil : $0 })
        let stream = PulseOutput.Settings(
            sink: settings["sink"].flatMap { $0.isEmpty ? nil : $0 }, streamName: configuration.name,
            mediaRole: settings["media_role"] ?? "music", followSinkRate: configuration.format == nil)
        return OutputDefinition(hardwareMixer: { PulseMixer(connection: connection) }) {
            PulseOutput(connection: connection, settings: stream)
        }
    }
}
