import CFFmpeg
import NimbusInput
import NimbusModel

/// Everything else through FFmpeg (AAC and ALAC in .m4a, WMA, APE, WavPack, Musepack, AIFF,
/// DSF …), last in the registry as in MPD. Its suffixes and MIME types are the demuxers'
/// own, asked of libavformat at run time, less those a native plugin takes. Scanning follows
/// MPD's FfmpegDecoderPlugin.cxx and FfmpegMetaData.cxx: the first audio stream; the length
/// from the stream's duration (else the container's); `16`, `32` or `f` samples; tags from
/// the container's then the stream's metadata, looked up by MPD's tag names in MPD's tag
/// order, then its FFmpeg and MusicBrainz tables; the attached picture for `readpicture`.
public struct FFmpegPlugin: DecoderPlugin {
    public let name = "ffmpeg"
    public let suffixes: [String]
    public let mimeTypes: [String]

    /// Suffixes a native plugin decodes better (exact MP3 lengths, Vorbis and FLAC as MPD has them).
    static let native: Set<String> = ["mp3", "ogg", "oga", "opus", "flac", "wav"]

    /// MPD's way (ffmpeg_suffixes): each demuxer's extensions, or its name when it lists none
    /// (`aiff` also gives `aif`), and suffixes of codecs that come in their own files (DSD,
    /// DST, WMA); sorted, as MPD's set is.
    public init() {
        var suffixes = Set<String>()
        var mimeTypes = Set(Self.commonMIMETypes)
        var state: UnsafeMutableRawPointer?
        while let demuxer = av_demuxer_iterate(&state) {
            if let list = demuxer.pointee.extensions {
                suffixes.formUnion(String(cString: list).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
            } else if let name = demuxer.pointee.name {
                let text = String(cString: name)
                if text == "aiff" { suffixes.insert("aif") }
                suffixes.insert(text)
            }
            if let list = demuxer.pointee.mime_type {
                mimeTypes.formUnion(String(cString: list).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
            }
        }
        var codecState: UnsafeMutableRawPointer?
        while let codec = av_codec_iterate(&codecState) {
            guard codec.pointee.type == AVMEDIA_TYPE_AUDIO, let name = codec.pointee.name.map({ String(cString: $0) }) else { continue }
            if name.hasPrefix("dsd_") { suffixes.formUnion(["dff", "dsf"]) }
            if name == "dst" { suffixes.insert("dst") }
            if name.hasPrefix("wma") { suffixes.insert("wma") }
        }
        self.suffixes = suffixes.subtracting(Self.native).subtracting(Self.notAudio).filter { !$0.isEmpty && !$0.contains("_") }.sorted()
        self.mimeTypes = mimeTypes.filter { !$0.isEmpty }.sorted()
    }

    /// Demuxers whose files are never songs: images, subtitles and text, playlists and
    /// manifests, raw video, headerless PCM (whose bytes any `.bin` could be). MPD 0.24 lets
    /// FFmpeg try all of them during every update; Nimbus does not open a cover or a `.txt`
    /// as music (README, deliberate differences).
    static let notAudio: Set<String> = [
        "apng", "avif", "bmp", "dds", "dpx", "exr", "gif", "ico", "j2k", "jpg", "jpeg", "jls", "jxl", "pam", "pbm", "pcx", "pfm",
        "pgm", "pgx", "phm", "png", "ppm", "psd", "qoi", "sgi", "svg", "tif", "tiff", "webp", "xbm", "xpm", "xwd", "mpo", "txd",
        "ans", "art", "asc", "diz", "ice", "nfo", "txt", "vt", "lrc", "srt", "ass", "ssa", "sub", "vtt", "sami", "smi", "mpl2",
        "pjs", "rt", "stl", "sup", "scc", "mcc", "aqt", "idx", "mks", "microdvd", "jacosub",
        "hls", "dash", "concat", "ffmetadata", "sdp", "rtp", "rtsp", "ism", "isma", "ismv", "imf", "cdata", "image2", "image2pipe",
        "264", "265", "h261", "h263", "h264", "h265", "h26l", "hevc", "avc", "avs", "avs2", "avs3", "cavs", "dirac", "dnxhd", "ivf",
        "obu", "m4v", "mjpeg", "mjpg", "mpegvideo", "rgb", "yuv", "yuv10", "y4m", "v210", "vc1", "rcv", "cif", "qcif", "iv8",
        "bin", "dat", "data", "v", "f32be", "f32le", "f64be", "f64le", "s16be", "s24be", "s24le", "s32be", "s32le", "sb", "sw",
        "u16be", "u24be", "u24le", "u32be", "u32le", "ub", "uw", "al", "ul", "sln", "vidc", "bit", "c2", "cgi", "frm", "sdr2",
    ]

    /// Types servers send for these files that no demuxer names.
    private static let commonMIMETypes = [
        "audio/mp4", "audio/m4a", "audio/x-m4a", "audio/aac", "audio/aacp", "audio/x-aac", "audio/aiff", "audio/x-aiff",
        "audio/x-ms-wma", "audio/x-wma", "audio/x-wv", "audio/x-monkeys-audio", "audio/x-musepack", "audio/musepack", "audio/x-tta",
        "audio/x-matroska", "audio/webm",
    ]

    public func scan(_ stream: any InputStream, options: ScanOptions) throws(DecoderError) -> ScanResult {
        let input = try FFmpegInput(stream, name: stream.uri, bufferSize: FFmpegInput.scanBufferSize)
        let audio = input.audioStream.pointee
        var result = ScanResult()
        var collector = TagCollector()
        if audio.duration != nimbus_av_nopts_value(), audio.duration > 0 {
            collector.setDuration(Int(audio.duration * Int64(audio.time_base.num) * 1000 / Int64(max(1, audio.time_base.den))))
        } else if let format = input.format?.pointee, format.duration != nimbus_av_nopts_value(), format.duration > 0 {
            collector.setDuration(Int(format.duration / 1000))
        }
        let parameters = audio.codecpar.pointee
        if let sample = FFmpegDecoder.sampleFormat(AVSampleFormat(parameters.format)), parameters.sample_rate > 0 {
            result.format = AudioFormat(
                sampleRate: UInt32(parameters.sample_rate), sample: sample, channels: UInt8(clamping: parameters.ch_layout.nb_channels))
        }
        for dictionary in [input.format?.pointee.metadata, audio.metadata] {
            FFmpegTags.scan(dictionary, into: &collector, result: &result, options: options)
        }
        if options.picture { result.picture = FFmpegTags.picture(input) }
        result.tag = collector.tag
        result.replayGain = collector.replayGain
        result.mixRamp = collector.mixRamp
        return result
    }

    public func openDecoder(_ stream: any InputStream) throws(DecoderError) -> any AudioDecoder { try FFmpegDecoder(stream) }

    /// Streaming protocols MPD's ffmpeg input plugin takes, which only libavformat speaks.
    public static let streamingSchemes = ["rtsp", "rtmp", "rtmps", "rtmpt", "rtp"]

    /// HLS radio, as MPD plays it through FFmpeg: `http(s)://…/x.m3u8` and `hls+http(s)://…`
    /// (the prefix removed), read by libavformat's own HTTP client; and RTSP, RTMP and RTP
    /// streams, which MPD also hands to FFmpeg.
    public static func isHLS(_ uri: String) -> Bool {
        let lowered = uri.lowercased()
        if lowered.hasPrefix("hls+http://") || lowered.hasPrefix("hls+https://") { return true }
        if let colon = lowered.range(of: "://"), streamingSchemes.contains(String(lowered[..<colon.lowerBound])) { return true }
        let path = lowered.prefix { $0 != "?" && $0 != "#" }
        return (lowered.hasPrefix("http://") || lowered.hasPrefix("https://")) && path.hasSuffix(".m3u8")
    }

    public static func openHLS(_ uri: String) throws(DecoderError) -> any AudioDecoder {
        let url = uri.lowercased().hasPrefix("hls+") ? String(uri.dropFirst(4)) : uri
        return try FFmpegDecoder(input: try FFmpegInput(url: url))
    }
}

/// MPD's way of reading an AVDictionary into tags (FfmpegMetaData.cxx).
enum FFmpegTags {
    /// `ffmpeg_tags` and `musicbrainz_txxx_tags` of MPD, looked up after its own tag names.
    private static let extra: [(String, TagType)] = [
        ("album_artist", .albumArtist), ("album-sort", .albumSort), ("artist-sort", .artistSort), ("title-sort", .titleSort),
        ("sort_album_artist", .albumArtistSort), ("sort_album", .albumSort), ("sort_artist", .artistSort),
        ("sort_name", .titleSort),
        ("ALBUMARTISTSORT", .albumArtistSort), ("MusicBrainz Artist Id", .musicBrainzArtistID),
        ("MusicBrainz Album Id", .musicBrainzAlbumID), ("MusicBrainz Album Artist Id", .musicBrainzAlbumArtistID),
        ("MusicBrainz Track Id", .musicBrainzTrackID), ("MusicBrainz Release Track Id", .musicBrainzReleaseTrackID),
        ("MusicBrainz Work Id", .musicBrainzWorkID), ("MusicBrainz Release Group Id", .musicBrainzReleaseGroupID),
    ]

    static func scan(_ dictionary: OpaquePointer?, into collector: inout TagCollector, result: inout ScanResult, options: ScanOptions) {
        guard let dictionary else { return }
        // av_dict_get matches keys case-insensitively, as MPD relies on.
        func each(_ key: String, _ body: (String) -> Void) {
            var entry: UnsafeMutablePointer<AVDictionaryEntry>?
            while let found = av_dict_get(dictionary, key, entry, 0) {
                body(String(cString: found.pointee.value))
                entry = found
            }
        }
        for type in TagType.allCases { each(type.wireName) { collector.add(type, $0) } }
        for (key, type) in extra { each(key) { collector.add(type, $0) } }
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let found = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
            let key = String(cString: found.pointee.key)
            let value = String(cString: found.pointee.value)
            if options.comments { result.comments.append((key, value)) }
            collector.noteLoudness(key, value)
            entry = found
        }
    }

    /// The attached picture (MP4 `covr`, an ID3 APIC in AIFF, a WMA picture).
    static func picture(_ input: FFmpegInput) -> Picture? {
        guard let format = input.format?.pointee else { return nil }
        for index in 0..<Int(format.nb_streams) {
            let stream = format.streams[index]!.pointee
            guard stream.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO, stream.disposition & AV_DISPOSITION_ATTACHED_PIC != 0,
                stream.attached_pic.size > 0, let data = stream.attached_pic.data
            else { continue }
            let mime = avcodec_descriptor_get(stream.codecpar.pointee.codec_id)?.pointee.mime_types?.pointee.map { String(cString: $0) }
            return Picture(mimeType: mime, data: Array(UnsafeBufferPointer(start: data, count: Int(stream.attached_pic.size))))
        }
        return nil
    }
}
