import NimbusEncoder
/// What a phone gets for one `stream` request: the file as it is, or a transcode — decided
/// from what it asked (`format`, `maxBitRate`), what its user's and the box's defaults say,
/// and what the song already is, so a song that is already small enough in a format the
/// phone takes goes out untouched.
public enum TranscodeFormat: String, Sendable, CaseIterable {
    case opus, mp3, aac

    /// The suffix and MIME type of the answer (what `transcodedSuffix` names).
    public var suffix: String { rawValue }
    public var contentType: String { EncoderRegistry.standard.plugin(named: encoderName)?.contentType ?? "application/octet-stream" }

    /// The encoder in `EncoderRegistry.standard` that makes it.
    public var encoderName: String {
        switch self {
        case .opus: "opus"
        case .mp3: "lame"
        case .aac: "aac"
        }
    }

    /// The rate used when only the format is asked for.
    public var defaultKbps: Int {
        switch self {
        case .opus: 128
        case .mp3: 192
        case .aac: 160
        }
    }

    /// The encoder's own range; a request outside it is brought inside.
    var kbpsRange: ClosedRange<Int> {
        switch self {
        case .opus: 6...510
        case .mp3: 8...320
        case .aac: 32...320
        }
    }

    /// The song's own suffixes that already are this format.
    func matches(suffix: String) -> Bool {
        switch self {
        case .opus: suffix == "opus"
        case .mp3: suffix == "mp3"
        case .aac: suffix == "aac" || suffix == "m4a"
        }
    }

    /// The nearest rate at or below `kbps` the encoder makes (LAME has a fixed list).
    func supported(_ kbps: Int) -> Int {
        let clamped = min(max(kbps, kbpsRange.lowerBound), kbpsRange.upperBound)
        guard self == .mp3 else { return clamped }
        let rates = [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        return rates.last { $0 <= clamped } ?? 8
    }
}

/// The box's and a user's choices for phones that ask for nothing (`subsonic { }` and
/// `subsonic_user { }` lines).
public struct TranscodeDefaults: Sendable, Equatable {
    /// Used when a phone asks for a bit rate but no format, or for nothing while `kbps` is set.
    public var format: TranscodeFormat?
    /// 0: phones that ask for nothing get the original.
    public var kbps: Int
    /// Client names (`c=`, compared without case) that get the original unless they ask.
    public var originalClients: Set<String>

    public init(format: TranscodeFormat? = nil, kbps: Int = 0, originalClients: Set<String> = []) {
        self.format = format
        self.kbps = kbps
        self.originalClients = originalClients
    }
}

public enum TranscodeDecision: Sendable, Equatable {
    case original
    case transcode(TranscodeFormat, kbps: Int)
}

/// What the phone asked for (`format`, `maxBitRate` in kbit/s, `c`) and what the song is.
public struct TranscodeRequest: Sendable {
    public var format: String?
    public var maxKbps: Int
    public var client: String?
    public var songSuffix: String
    /// The song's own bit rate in kbit/s (0: unknown).
    public var songKbps: Int

    public init(format: String?, maxKbps: Int, client: String?, songSuffix: String, songKbps: Int) {
        self.format = format
        self.maxKbps = maxKbps
        self.client = client
        self.songSuffix = songSuffix.lowercased()
        self.songKbps = songKbps
    }
}

public enum TranscodePlan {
    public enum Failure: Error, Equatable {
        /// A format the box does not make.
        case unknownFormat(String)
    }

    public static func decide(_ request: TranscodeRequest, defaults: TranscodeDefaults) throws(Failure) -> TranscodeDecision {
        var asked: TranscodeFormat?
        if let name = request.format?.lowercased(), !name.isEmpty {
            if name == "raw" { return .original }
            guard let format = TranscodeFormat(rawValue: name == "ogg" ? "opus" : name == "m4a" ? "aac" : name) else {
                throw .unknownFormat(name)
            }
            asked = format
        }
        var kbps = request.maxKbps
        if asked == nil, kbps == 0 {
            // A phone that asks for nothing: the box's default, unless it is one to be spared.
            let spared = request.client.map { name in defaults.originalClients.contains { $0.lowercased() == name.lowercased() } } ?? false
            guard !spared, defaults.kbps > 0 else { return .original }
            kbps = defaults.kbps
        }
        // A bit rate alone: any format is acceptable while the song is within it.
        if asked == nil, request.songKbps > 0, request.songKbps <= kbps { return .original }
        let format = asked ?? defaults.format ?? .opus
        if kbps == 0 { kbps = format.defaultKbps }
        if format.matches(suffix: request.songSuffix), request.songKbps > 0, request.songKbps <= kbps { return .original }
        // Never more bits than the song had: a 96 kbit/s Vorbis made into MP3 stays near 96.
        if request.songKbps > 0 { kbps = min(kbps, max(request.songKbps, format.kbpsRange.lowerBound)) }
        return .transcode(format, kbps: format.supported(kbps))
    }

    /// What `estimateContentLength` promises: the duration at the bit rate, with a little
    /// room for the container (pages, headers), as gonic pads it.
    public static func estimatedLength(seconds: Double, kbps: Int) -> Int64 {
        Int64((max(0, seconds) * Double(kbps) * 1000 / 8 * 1.03).rounded(.up)) + 4096
    }
}
