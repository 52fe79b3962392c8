import Foundation

/// Test signals whose samples identify their own frame index, so an output file shows
/// exactly which frames were played.
public enum AudioFixtures {
    /// 16-bit stereo at 44.1 kHz: left = frame & 0xFFFF, right = frame >> 16.
    /// `DIRECTORY/Album/01.flac`, `02.flac` …: lossless ramps titled `Song 1`, `Song 2` …, the
    /// drive the cloud and sign-in tests serve. `frames` gives each song's length.
    public static func writeTitledFLACAlbum(in directory: String, songs: Int = 2, frames: (Int) -> Int = { _ in 44_100 }) throws {
        let album = directory + "/Album"
        try FileManager.default.createDirectory(atPath: album, withIntermediateDirectories: true)
        for index in 1...songs {
            let wav = album + "/\(index).wav"
            try writeRampWAV(to: wav, frames: frames(index))
            try runTool("flac", ["-s", "-f", "-T", "TITLE=Song \(index)", "-o", album + "/0\(index).flac", wav])
            try FileManager.default.removeItem(atPath: wav)
        }
    }

    public static func writeRampWAV(to path: String, frames: Int, rate: Int = 44100) throws {
        try writeStereo16WAV(to: path, frames: frames, rate: rate) { frame in (UInt16(frame & 0xFFFF), UInt16(frame >> 16)) }
    }

    /// A canonical 44-byte-header WAV of 16-bit stereo frames, each from `frame(index)`.
    public static func writeStereo16WAV(to path: String, frames: Int, rate: Int = 44100, frame: (Int) -> (UInt16, UInt16)) throws {
        var data = Data(capacity: 44 + frames * 4)
        func u32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8))
        u32(36 + frames * 4)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16)
        u16(1)
        u16(2)
        u32(rate)
        u32(rate * 4)
        u16(4)
        u16(16)
        data.append(contentsOf: Array("data".utf8))
        u32(frames * 4)
        for index in 0..<frames {
            let (left, right) = frame(index)
            u16(Int(left))
            u16(Int(right))
        }
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// The frame index encoded in the first frame of 16-bit stereo `bytes`.
    public static func rampIndex<C: Collection>(_ bytes: C) -> Int where C.Element == UInt8, C.Index == Int {
        let start = bytes.startIndex
        let low = Int(bytes[start]) | Int(bytes[start + 1]) << 8
        let high = Int(bytes[start + 2]) | Int(bytes[start + 3]) << 8
        return low | high << 16
    }
}

extension AudioFixtures {
    /// 16-bit stereo sine at 44.1 kHz, both channels equal. The phase is taken from the absolute
    /// frame index `firstFrame + i`, so consecutive files continue one signal without a seam.
    public static func writeSineWAV(
        to path: String, frames: Int, firstFrame: Int = 0, frequency: Double = 1000, amplitude: Double = 0.5
    ) throws {
        try writeStereo16WAV(to: path, frames: frames) { index in
            let sample = UInt16(bitPattern: Int16(sineSample(frame: firstFrame + index, frequency: frequency, amplitude: amplitude)))
            return (sample, sample)
        }
    }

    /// The ideal value of that sine at `frame`, in 16-bit units.
    public static func sineSample(frame: Int, frequency: Double, amplitude: Double) -> Double {
        (amplitude * 32767 * sin(2 * Double.pi * frequency * Double(frame) / 44100)).rounded()
    }

    /// Left-channel samples of raw 16-bit little-endian stereo.
    public static func leftChannel(_ bytes: [UInt8]) -> [Int16] {
        stride(from: 0, to: bytes.count - 3, by: 4).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
    }

    /// Ramp indices of every frame of raw 16-bit stereo written from ramp files.
    public static func rampIndices(_ bytes: [UInt8]) -> [Int] {
        stride(from: 0, to: bytes.count - 3, by: 4).map { rampIndex(bytes[$0..<($0 + 4)]) }
    }
}

/// An ALSA configuration, given to a daemon through ALSA_CONFIG_PATH, whose PCM `capture`
/// writes everything played into a raw file (ALSA's `file` plugin over a `null` slave). Each
/// opening of the device starts the file afresh.
public struct ALSACapture {
    public let configPath: String
    public let outputPath: String

    /// `separate`: every opening of the device writes a file of its own (`openings`); else
    /// ALSA truncates the one file at each opening.
    public init(in directory: TemporaryDirectory, name: String = "capture", separate: Bool = false) {
        outputPath = directory.file("\(name).raw")
        configPath = directory.write(
            "\(name)-alsa.conf",
            "pcm.capture { type file slave.pcm { type null } file \"\(outputPath)\" format \"raw\"\(separate ? " truncate false" : "") }\n")
    }

    public var environment: [String: String] { ["ALSA_CONFIG_PATH": configPath] }

    /// An `audio_output` block for the daemon config.
    public static func outputBlock(name: String = "capture", format: String = "44100:16:2", mixer: String = "software") -> String {
        """
        audio_output {
            type "alsa"
            name "\(name)"
            device "capture"
            mixer_type "\(mixer)"
            format "\(format)"
        }
        """
    }

    public var bytes: [UInt8] { (try? Array(Data(contentsOf: URL(fileURLWithPath: outputPath)))) ?? [] }

    /// With `separate`: what each opening of the device wrote, in order (ALSA names the
    /// files after the first `NAME.raw.0001`, `.0002`, …).
    public var openings: [[UInt8]] {
        var found: [[UInt8]] = []
        while true {
            let path = found.isEmpty ? outputPath : outputPath + "." + String(format: "%04d", found.count)
            guard let data = FileManager.default.contents(atPath: path) else { return found }
            found.append(Array(data))
        }
    }
}
