import CPulse
import Glibc
import NimbusModel

/// MPD's `pulse` output: one playback stream on a PulseAudio server — or on PipeWire through
/// its pulse server, which is how Raspberry Pi OS and today's desktops run. The stream is
/// opened at the sink's own rate (Nimbus's resampler converts once; the server does not
/// resample again); writes wait for room in the server's buffer, which paces playback. When
/// the server goes away mid-song (restarted), the next write connects again and recreates the
/// stream, as MPD 0.25's `reconnect_stream`.
final class PulseOutput: AudioOutput {
    struct Settings: Sendable {
        var sink: String?
        var streamName: String
        var mediaRole: String
        /// False when the block fixes a `format`: then its rate is used as given.
        var followSinkRate: Bool
    }

    private let connection: PulseConnection
    private let settings: Settings
    private var format: AudioFormat?

    init(connection: PulseConnection, settings: Settings) {
        self.connection = connection
        self.settings = settings
    }

    deinit { close() }

    func open(_ requested: AudioFormat) throws(OutputError) -> AudioFormat {
        try connection.locked { () throws(OutputError) -> AudioFormat in
            var format = requested
            switch format.sample {
            case .s16, .s24, .s32, .float: break
            case .s8, .dsd: format.sample = .float
            }
            if settings.followSinkRate, let rate = try connection.sinkRate(settings.sink), rate > 0 {
                format.sampleRate = rate
            }
            try createStream(format)
            self.format = format
            return format
        }
    }

    /// Lock held.
    private func createStream(_ format: AudioFormat) throws(OutputError) {
        let context = try connection.readyContext()
        var spec = pa_sample_spec(format: Self.sampleFormat(format.sample), rate: format.sampleRate, channels: format.channels)
        var map = pa_channel_map()
        pa_channel_map_init_extend(&map, UInt32(format.channels), PA_CHANNEL_MAP_WAVEEX)
        let properties = pa_proplist_new()
        defer { pa_proplist_free(properties) }
        pa_proplist_sets(properties, PA_PROP_MEDIA_ROLE, settings.mediaRole)
        guard let stream = pa_stream_new_with_proplist(context, settings.streamName, &spec, &map, properties) else {
            throw connection.failure("pa_stream_new() has failed")
        }
        connection.stream = stream
        pa_stream_set_state_callback(stream, { _, loop in pa_threaded_mainloop_signal(OpaquePointer(loop), 0) }, connection.signalTarget)
        pa_stream_set_write_callback(stream, { _, _, loop in pa_threaded_mainloop_signal(OpaquePointer(loop), 0) }, connection.signalTarget)
        let flags = pa_stream_flags_t(rawValue: PA_STREAM_INTERPOLATE_TIMING.rawValue | PA_STREAM_AUTO_TIMING_UPDATE.rawValue)
        var volume = pa_cvolume()
        let connected: Int32
        if let percent = connection.requestedVolume {
            pa_cvolume_set(&volume, UInt32(format.channels), PulseMixer.pulseVolume(percent))
            connected = pa_stream_connect_playback(stream, settings.sink, nil, flags, &volume, nil)
        } else {
            connected = pa_stream_connect_playback(stream, settings.sink, nil, flags, nil, nil)
        }
        guard connected >= 0 else {
            throw connection.failure("pa_stream_connect_playback() has failed")
        }
        while true {
            let state = pa_stream_get_state(stream)
            if state == PA_STREAM_READY { return }
            if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED {
                throw connection.failure("failed to connect the stream\(settings.sink.map { " to sink \"\($0)\"" } ?? "")")
            }
            connection.wait()
        }
    }

    static func sampleFormat(_ sample: SampleFormat) -> pa_sample_format_t {
        switch sample {
        case .s16: PA_SAMPLE_S16LE
        case .s24: PA_SAMPLE_S24_32LE
        case .s32: PA_SAMPLE_S32LE
        case .s8, .float, .dsd: PA_SAMPLE_FLOAT32LE
        }
    }

    func play(_ pcm: UnsafeRawBufferPointer) throws(OutputError) {
        try connection.locked { () throws(OutputError) in
            connection.interrupted = false
            var offset = 0
            while offset < pcm.count, !connection.interrupted {
                guard let stream = try liveStreamWaitingForTheServer() else { return }
                let room = pa_stream_writable_size(stream)
                if room == Int.max || room == 0 || room == -1 {
                    connection.wait()
                    continue
                }
                let count = min(room, pcm.count - offset)
                guard pa_stream_write(stream, pcm.baseAddress! + offset, count, nil, 0, PA_SEEK_RELATIVE) >= 0 else {
                    throw connection.failure("pa_stream_write() failed")
                }
                offset += count
            }
        }
    }

    /// A server that restarts is back within seconds: try for five before failing the output.
    /// The lock is let go between tries so the mixer is not held up. Lock held.
    private func liveStreamWaitingForTheServer() throws(OutputError) -> OpaquePointer? {
        var tries = 0
        while true {
            do {
                return try liveStream()
            } catch {
                tries += 1
                guard tries < 50, !connection.interrupted else { throw error }
                connection.unlocked { usleep(100_000) }
            }
        }
    }

    /// The stream, recreated when the server went away. Lock held.
    private func liveStream() throws(OutputError) -> OpaquePointer? {
        if let stream = connection.stream, pa_stream_get_state(stream) == PA_STREAM_READY { return stream }
        guard let format else { return nil }
        if let stream = connection.stream {
            pa_stream_disconnect(stream)
            pa_stream_unref(stream)
            connection.stream = nil
        }
        try createStream(format)
        return connection.stream
    }

    func drain() {
        connection.locked {
            guard let stream = connection.stream, pa_stream_get_state(stream) == PA_STREAM_READY else { return }
            connection.finish(pa_stream_drain(stream, { _, _, loop in pa_threaded_mainloop_signal(OpaquePointer(loop), 0) }, connection.signalTarget))
        }
    }

    func cancel() {
        connection.locked {
            guard let stream = connection.stream, pa_stream_get_state(stream) == PA_STREAM_READY else { return }
            connection.finish(pa_stream_flush(stream, { _, _, loop in pa_threaded_mainloop_signal(OpaquePointer(loop), 0) }, connection.signalTarget))
        }
    }

    func pause() -> Bool { cork(true) }

    func resume() { _ = cork(false) }

    private func cork(_ on: Bool) -> Bool {
        connection.locked {
            guard let stream = connection.stream, pa_stream_get_state(stream) == PA_STREAM_READY else { return false }
            connection.finish(
                pa_stream_cork(stream, on ? 1 : 0, { _, _, loop in pa_threaded_mainloop_signal(OpaquePointer(loop), 0) }, connection.signalTarget))
            return true
        }
    }

    func close() {
        connection.locked {
            format = nil
            guard let stream = connection.stream else { return }
            pa_stream_set_write_callback(stream, nil, nil)
            pa_stream_set_state_callback(stream, nil, nil)
            pa_stream_disconnect(stream)
            pa_stream_unref(stream)
            connection.stream = nil
        }
    }

    func interrupt() {
        connection.locked {
            connection.interrupted = true
            connection.signal()
        }
    }

    var delayFrames: Int {
        connection.locked {
            guard let stream = connection.stream, let format else { return 0 }
            var latency: pa_usec_t = 0
            var negative: Int32 = 0
            guard pa_stream_get_latency(stream, &latency, &negative) == 0, negative == 0 else { return 0 }
            return Int(latency * UInt64(format.sampleRate) / 1_000_000)
        }
    }
}
