import Glibc
import NimbusModel
import NimbusPlayer
import NimbusQueue

/// What the state file remembers, in MPD's own state file format, so a state file written by
/// MPD restores here and the other way round.
public struct SavedState: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var song: Song
        public var priority: UInt8 = 0
        public var range: SongRange?
        /// False when the entry names a library song by URI only (MPD's `N:URI` line).
        public var isDetached = false

        public init(song: Song, priority: UInt8 = 0, range: SongRange? = nil, isDetached: Bool = false) {
            self.song = song
            self.priority = priority
            self.range = range
            self.isDetached = isDetached
        }
    }

    /// The partition these lines describe (MPD 0.24 writes other partitions after a
    /// `partition: NAME` line).
    public var partition = "default"
    public var volume: Int?
    /// Output name → enabled.
    public var outputs: [(name: String, enabled: Bool)] = []
    public var state: PlayerState = .stop
    /// Queue position of the current song.
    public var current: Int?
    public var elapsedMilliseconds = 0
    /// The stored playlist last loaded into the queue (MPD 0.24's `lastloadedplaylist`).
    public var lastLoadedPlaylist = ""
    public var options = PlaybackOptions()
    public var random = false
    public var entries: [Entry] = []

    public init() {}

    public static func == (lhs: SavedState, rhs: SavedState) -> Bool {
        lhs.partition == rhs.partition && lhs.volume == rhs.volume && lhs.outputs.elementsEqual(rhs.outputs, by: { $0 == $1 }) && lhs.state == rhs.state
            && lhs.current == rhs.current && lhs.elapsedMilliseconds == rhs.elapsedMilliseconds
            && lhs.options == rhs.options && lhs.random == rhs.random && lhs.entries == rhs.entries
    }
}

public enum StateFileCodec {
    /// The default partition first, then each other one after its `partition:` line.
    public static func encode(_ states: [SavedState]) -> String {
        var text = ""
        for (index, state) in states.enumerated() {
            if index > 0 { text += "partition: \(state.partition)\n" }
            text += encode(state)
        }
        return text
    }

    public static func encode(_ state: SavedState) -> String {
        var text = ""
        if let volume = state.volume { text += "sw_volume: \(volume)\n" }
        for output in state.outputs { text += "audio_device_state:\(output.enabled ? 1 : 0):\(output.name)\n" }
        text += "state: \(name(of: state.state))\n"
        if let current = state.current {
            text += "current: \(current)\n"
            text += "time: \(decimal(Double(state.elapsedMilliseconds) / 1000))\n"
        }
        let options = state.options
        text += "random: \(state.random ? 1 : 0)\n"
        text += "repeat: \(options.repeatMode ? 1 : 0)\n"
        text += "single: \(options.single.rawValue)\n"
        text += "consume: \(options.consume.rawValue)\n"
        text += "crossfade: \(options.crossfade)\n"
        text += "mixrampdb: \(decimal(Double(options.mixRampDB)))\n"
        text += "mixrampdelay: \(options.mixRampDelay.map { decimal(Double($0)) } ?? "nan")\n"
        // Not in MPD's state file (MPD ignores the line); Nimbus keeps the mode across restarts.
        text += "replay_gain_mode: \(options.replayGainMode)\n"
        text += "lastloadedplaylist: \(state.lastLoadedPlaylist)\n"
        text += "playlist_begin\n"
        for (index, entry) in state.entries.enumerated() {
            if entry.priority != 0 { text += "Prio: \(entry.priority)\n" }
            if entry.isDetached || entry.range != nil {
                encodeSong(entry, into: &text)
            } else {
                text += "\(index):\(entry.song.uri)\n"
            }
        }
        text += "playlist_end\n"
        return text
    }

    /// MPD's song_save block for songs outside the database (and ranged songs).
    private static func encodeSong(_ entry: SavedState.Entry, into text: inout String) {
        text += "song_begin: \(entry.song.uri)\n"
        if let range = entry.range {
            text += "Range: \(range.start / 1000).\(pad(range.start % 1000))-"
            if let end = range.end { text += "\(end / 1000).\(pad(end % 1000))" }
            text += "\n"
        }
        for item in entry.song.tag.items {
            text += "\(item.type.staticWireName.description): \(item.value.replacing("\n", with: " "))\n"
        }
        if let duration = entry.song.tag.duration { text += "Time: \(decimal(Double(duration) / 1000))\n" }
        if let format = entry.song.format { text += "Format: \(format.description)\n" }
        if let modified = entry.song.lastModified { text += "mtime: \(modified)\n" }
        text += "song_end\n"
    }

    /// Every partition in the file, the default one first.
    public static func decodePartitions(_ text: String) -> [SavedState] {
        var states = [SavedState()]
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while !lines.isEmpty {
            decode(&lines, into: &states[states.count - 1])
            if let header = lines.popFirst(), header.hasPrefix("partition: ") {
                var next = SavedState()
                next.partition = String(header.dropFirst("partition: ".count))
                states.append(next)
            }
        }
        return states
    }

    /// The default partition's state (MPD 0.23's whole file).
    public static func decode(_ text: String) -> SavedState { decodePartitions(text)[0] }

    /// Reads MPD's format leniently: unknown lines are ignored, as MPD ignores them. Stops
    /// before a `partition:` line.
    private static func decode(_ lines: inout ArraySlice<Substring>, into state: inout SavedState) {
        while let line = lines.first, !line.hasPrefix("partition: ") {
            lines.removeFirst()
            if line == "playlist_begin" {
                decodeQueue(&lines, into: &state)
                continue
            }
            if line.hasPrefix("audio_device_state:") {
                let rest = line.dropFirst("audio_device_state:".count)
                guard let colon = rest.firstIndex(of: ":") else { continue }
                state.outputs.append((String(rest[colon...].dropFirst()), rest[..<colon] != "0"))
                continue
            }
            guard let (key, value) = split(line) else { continue }
            switch key {
            case "sw_volume": state.volume = Int(value).map { max(0, min(100, $0)) }
            case "state": state.state = value == "play" ? .play : value == "pause" ? .pause : .stop
            case "current": state.current = Int(value).flatMap { $0 >= 0 ? $0 : nil }
            case "time": state.elapsedMilliseconds = milliseconds(value) ?? 0
            case "random": state.random = value == "1"
            case "repeat": state.options.repeatMode = value == "1"
            case "single": state.options.single = SingleMode(rawValue: value) ?? .off
            case "consume": state.options.consume = ConsumeMode(rawValue: value) ?? .off
            case "crossfade": state.options.crossfade = Int(value).map { max(0, $0) } ?? 0
            case "mixrampdb": state.options.mixRampDB = Float(value).flatMap { $0.isFinite ? $0 : nil } ?? 0
            case "mixrampdelay": state.options.mixRampDelay = Float(value).flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
            case "lastloadedplaylist": state.lastLoadedPlaylist = value
            case "replay_gain_mode":
                if ["off", "track", "album", "auto"].contains(value) { state.options.replayGainMode = value }
            default: break
            }
        }
    }

    private static func decodeQueue(_ lines: inout ArraySlice<Substring>, into state: inout SavedState) {
        var priority: UInt8 = 0
        while let line = lines.popFirst(), line != "playlist_end" {
            if line.hasPrefix("Prio: ") {
                priority = UInt8(line.dropFirst(6)) ?? 0
            } else if line.hasPrefix("song_begin: ") {
                var entry = decodeSong(uri: String(line.dropFirst(12)), &lines)
                entry.priority = priority
                priority = 0
                state.entries.append(entry)
            } else if let colon = line.firstIndex(of: ":"), Int(line[..<colon]) != nil {
                state.entries.append(SavedState.Entry(song: Song(uri: String(line[colon...].dropFirst())), priority: priority))
                priority = 0
            }
        }
    }

    private static func decodeSong(uri: String, _ lines: inout ArraySlice<Substring>) -> SavedState.Entry {
        var entry = SavedState.Entry(song: Song(uri: uri), isDetached: true)
        while let line = lines.popFirst(), line != "song_end" {
            guard let (key, value) = split(line) else { continue }
            switch key {
            case "Range":
                let parts = value.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
                if let start = parts.first.flatMap({ milliseconds(String($0)) }) {
                    entry.range = SongRange(start: start, end: parts.count > 1 ? milliseconds(String(parts[1])) : nil)
                }
            case "Time": entry.song.tag.duration = milliseconds(value)
            case "Format":
                if case let (rate?, sample?, channels?)? = AudioFormat.parse(value) {
                    entry.song.format = AudioFormat(sampleRate: rate, sample: sample, channels: channels)
                }
            case "mtime": entry.song.lastModified = Int64(value)
            default:
                if let type = TagType(name: key) { entry.song.tag.items.append(TagItem(type, value)) }
            }
        }
        // A library song saved with a range is still a library song.
        entry.isDetached = entry.song.isURL || !entry.song.tag.items.isEmpty
        return entry
    }

    private static func split(_ line: Substring) -> (String, String)? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        var value = line[line.index(after: colon)...]
        if value.first == " " { value = value.dropFirst() }
        return (String(line[..<colon]), String(value))
    }

    private static func name(of state: PlayerState) -> String {
        switch state {
        case .stop: "stop"
        case .play: "play"
        case .pause: "pause"
        }
    }

    private static func milliseconds(_ text: String) -> Int? {
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else { return nil }
        return SongTime.milliseconds(fromSeconds: seconds)
    }

    /// `%f` as MPD writes its floats, `nan`, `inf` and huge values included.
    private static func decimal(_ value: Double) -> String {
        var buffer = [CChar](repeating: 0, count: 400)
        let count = withVaList([value]) { vsnprintf(&buffer, buffer.count, "%f", $0) }
        return String(decoding: buffer.prefix(Int(max(0, min(count, 399)))).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func pad(_ value: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: 3 - text.count) + text
    }
}
