import CALSA
import Glibc
import NimbusModel

/// Playback through libasound. The device name is any ALSA PCM (`default`, `hw:1,0`, a name
/// from .asoundrc); `configuration` optionally supplies ALSA config text loaded in-process
/// (tests define a `file` PCM this way without touching the environment).
public final class ALSAOutput: AudioOutput {
    /// MPD's ALSA settings beyond the device.
    public struct Options: Sendable, Equatable {
        /// `buffer_time` in µs: how much the device holds (Nimbus's default 100 ms, MPD's 500 ms).
        public var bufferTime: UInt32 = 100_000
        /// `auto_resample`, `auto_channels`, `auto_format` "no": libasound's plug layer may not
        /// convert rate, channels or sample format (SND_PCM_NO_AUTO_*), as MPD opens it.
        public var autoResample = true
        public var autoChannels = true
        public var autoFormat = true
        /// `close_on_pause`: the device is closed while paused, so other programs may use it.
        public var closeOnPause = false

        public init() {}

        var openMode: Int32 {
            (autoResample ? 0 : 0x0001_0000) | (autoChannels ? 0 : 0x0002_0000) | (autoFormat ? 0 : 0x0004_0000)
        }
    }

    private let device: String
    private let options: Options
    private let configuration: String?
    private var pcm: OpaquePointer?
    private var format = AudioFormat(sampleRate: 44100, sample: .s16, channels: 2)
    private var canPause = false
    private var closedForPause = false

    public init(device: String = "default", options: Options = Options(), configuration: String? = nil) {
        self.device = device
        self.options = options
        self.configuration = configuration
        calsa_silence_errors()
    }

    public func open(_ requested: AudioFormat) throws(OutputError) -> AudioFormat {
        close()
        closedForPause = false
        pcm = try openPCM()
        // Prefer the source format; fall back to 16-bit, which every device takes.
        for candidate in [requested, AudioFormat(sampleRate: requested.sampleRate, sample: .s16, channels: requested.channels)] {
            guard let alsaFormat = Self.alsaFormat(candidate.sample) else { continue }
            let status = snd_pcm_set_params(
                pcm, alsaFormat, SND_PCM_ACCESS_RW_INTERLEAVED, UInt32(candidate.channels), candidate.sampleRate,
                options.autoResample ? 1 : 0, options.bufferTime)
            if status == 0 {
                format = candidate
                canPause = Self.supportsPause(pcm)
                return candidate
            }
        }
        let reason = "Failed to configure ALSA device \"\(device)\" for \(requested)"
        close()
        throw OutputError(reason)
    }

    private func openPCM() throws(OutputError) -> OpaquePointer {
        var handle: OpaquePointer?
        var status: Int32
        if let configuration {
            var input: OpaquePointer?
            var config: OpaquePointer?
            status = configuration.withCString { snd_input_buffer_open(&input, $0, configuration.utf8.count) }
            guard status == 0 else { throw OutputError("Invalid ALSA configuration: \(String(cString: snd_strerror(status)))") }
            defer { snd_input_close(input) }
            snd_config_top(&config)
            status = snd_config_load(config, input)
            if status == 0 { status = snd_pcm_open_lconf(&handle, device, SND_PCM_STREAM_PLAYBACK, options.openMode, config) }
            snd_config_delete(config)
        } else {
            status = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, options.openMode)
        }
        guard status == 0, let handle else {
            throw OutputError("Failed to open ALSA device \"\(device)\": \(String(cString: snd_strerror(status)))")
        }
        return handle
    }

    public func play(_ data: UnsafeRawBufferPointer) throws(OutputError) {
        guard let pcm else { throw OutputError("ALSA device \"\(device)\" is not open") }
        var frames = data.count / format.frameBytes
        var pointer = data.baseAddress!
        while frames > 0 {
            let written = snd_pcm_writei(pcm, pointer, snd_pcm_uframes_t(frames))
            if written < 0 {
                // Underruns (EPIPE) and suspends (ESTRPIPE) are recoverable; anything else is not.
                let recovered = snd_pcm_recover(pcm, Int32(written), 1)
                if recovered < 0 {
                    throw OutputError("ALSA write to \"\(device)\" failed: \(String(cString: snd_strerror(Int32(written))))")
                }
                continue
            }
            frames -= written
            pointer += written * format.frameBytes
        }
    }

    public func drain() {
        if let pcm { snd_pcm_drain(pcm) }
    }

    public func cancel() {
        guard let pcm else { return }
        snd_pcm_drop(pcm)
        snd_pcm_prepare(pcm)
    }

    public func pause() -> Bool {
        if options.closeOnPause, pcm != nil {
            // Held closed: `resume` opens the device again in the same format.
            close()
            closedForPause = true
            return true
        }
        guard let pcm, canPause else {
            cancel()
            return false
        }
        return snd_pcm_pause(pcm, 1) == 0
    }

    public func resume() {
        if closedForPause {
            closedForPause = false
            _ = try? open(format)
            return
        }
        guard let pcm else { return }
        if snd_pcm_state(pcm) == SND_PCM_STATE_PAUSED { snd_pcm_pause(pcm, 0) } else { snd_pcm_prepare(pcm) }
    }

    public func close() {
        if let pcm { snd_pcm_close(pcm) }
        pcm = nil
    }

    public var delayFrames: Int {
        guard let pcm else { return 0 }
        var delay: snd_pcm_sframes_t = 0
        return snd_pcm_delay(pcm, &delay) == 0 ? max(0, delay) : 0
    }

    private static func alsaFormat(_ sample: SampleFormat) -> snd_pcm_format_t? {
        switch sample {
        case .s8: return SND_PCM_FORMAT_S8
        case .s16: return SND_PCM_FORMAT_S16_LE
        case .s24: return SND_PCM_FORMAT_S24_LE
        case .s32: return SND_PCM_FORMAT_S32_LE
        case .float: return SND_PCM_FORMAT_FLOAT_LE
        case .dsd: return nil
        }
    }

    private static func supportsPause(_ pcm: OpaquePointer?) -> Bool {
        var parameters: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&parameters) == 0 else { return false }
        defer { snd_pcm_hw_params_free(parameters) }
        guard snd_pcm_hw_params_current(pcm, parameters) == 0 else { return false }
        return snd_pcm_hw_params_can_pause(parameters) != 0
    }
}

/// `type "alsa"`: `device` (default `default`), a hardware mixer on its card (`mixer_device`,
/// `mixer_control`), and the `allowed_formats` and `dop` attributes MPD offers.
public struct ALSAOutputPlugin: OutputPlugin {
    public let type = "alsa"
    public init() {}

    public func configure(_ configuration: OutputConfiguration) throws(OutputError) -> OutputDefinition {
        let settings = configuration.settings
        let device = settings["device"] ?? "default"
        let mixerDevice = settings["mixer_device"] ?? device, control = settings["mixer_control"]
        var options = ALSAOutput.Options()
        if let text = settings["buffer_time"] {
            guard let value = UInt32(text), value > 0 else { throw OutputError("buffer_time: \"\(text)\" is not a positive number") }
            options.bufferTime = value
        }
        options.autoResample = configuration.flag("auto_resample", default: true)
        options.autoChannels = configuration.flag("auto_channels", default: true)
        options.autoFormat = configuration.flag("auto_format", default: true)
        options.closeOnPause = configuration.flag("close_on_pause", default: false)
        return OutputDefinition(
            hardwareMixer: { ALSAMixer(device: mixerDevice, control: control) },
            attributes: [
                ("allowed_formats", settings["allowed_formats"] ?? ""),
                ("dop", configuration.flag("dop", default: false) ? "1" : "0"),
            ]
        ) { [options] in ALSAOutput(device: device, options: options) }
    }
}
