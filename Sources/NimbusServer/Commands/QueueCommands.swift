import NimbusCore
import NimbusModel
import NimbusProtocol
import NimbusQueue
import NimbusSupport

/// Editing the queue: add, addid, delete, deleteid, move, moveid, swap, swapid, clear,
/// shuffle, prio, prioid, rangeid, addtagid, cleartagid. Argument checks happen in MPD's order
/// so that every bad request gets MPD's exact ACK.
@CoreActor
enum QueueCommands {
    nonisolated static let all: [Command] = [
        Command("add", .add, arguments: 1...2, handler: add),
        Command("addid", .add, arguments: 1...2, handler: addID),
        Command("delete", .player, arguments: 1...1, handler: delete),
        Command("deleteid", .player, arguments: 1...1, handler: deleteID),
        Command("move", .player, arguments: 2...2, handler: move),
        Command("moveid", .player, arguments: 2...2, handler: moveID),
        Command("swap", .player, arguments: 2...2, handler: swap),
        Command("swapid", .player, arguments: 2...2, handler: swapID),
        Command("clear", .player, arguments: 0...0, handler: clear),
        Command("shuffle", .player, arguments: 0...1, handler: shuffle),
        Command("prio", .player, arguments: 2...2, unlimited: true, handler: prio),
        Command("prioid", .player, arguments: 2...2, unlimited: true, handler: prioID),
        Command("rangeid", .add, arguments: 2...2, handler: rangeID),
        Command("addtagid", .add, arguments: 3...3, handler: addTagID),
        Command("cleartagid", .add, arguments: 1...2, handler: clearTagID),
    ]

    static func add(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let partition = call.session.partition
        let position = try call.arguments.count > 1 ? insertPosition(call[1], partition) : nil
        let songs = try SongLookup.songs(for: call[0], call, kind: .songOrDirectory)
        try partition.add(songs, at: position)
        return .ok
    }

    static func addID(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let partition = call.session.partition
        let songs = try SongLookup.songs(for: call[0], call, kind: .song)
        let position = try call.arguments.count > 1 ? insertPosition(call[1], partition) : nil
        let ids = try partition.add(songs, at: position)
        out.field("Id", ids[0])
        return .ok
    }

    /// MPD's ParseInsertPosition: absolute, or `+N` after / `-N` before the current song.
    static func insertPosition(_ text: String, _ partition: Partition) throws -> Int {
        let length = partition.queue.count
        guard let sign = text.first, sign == "+" || sign == "-" else {
            return Int(try Arguments.unsigned(text, max: UInt(length)))
        }
        guard let current = partition.currentPosition else { throw ProtocolError(.playerSync, "No current song") }
        let offset = String(text.dropFirst())
        if sign == "+" { return current + 1 + Int(try Arguments.unsigned(offset, max: UInt(length - current - 1))) }
        return current - Int(try Arguments.unsigned(offset, max: UInt(current)))
    }

    static func delete(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let partition = call.session.partition
        let range = try Arguments.range(call[0])
        let count = partition.queue.count
        // MPD's RangeArg::CheckClip: the start may equal the length; the end is clipped.
        guard range.start <= count else { throw PlaybackError.badSongIndex }
        try partition.delete(range.start..<max(range.start, min(range.end ?? count, count)))
        return .ok
    }

    static func deleteID(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let partition = call.session.partition
        let position = try partition.queue.position(ofExistingID: Int(try Arguments.unsigned(call[0])))
        try partition.delete(position..<(position + 1))
        return .ok
    }

    static func move(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let partition = call.session.partition
        let parsed = try Arguments.range(call[0])
        guard let end = parsed.end else { throw ProtocolError.argument("Open-ended range not supported") }
        let range = parsed.start..<end
        let to = try moveDestination(call[1], range: range, partition)
        guard !range.isEmpty, range.upperBound <= partition.queue.count else { throw PlaybackError.badSongIndex }
        try partition.move(range, to: to)
        return .ok
    }

    static func moveID(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let partition = call.session.partition
        let id = Int(try Arguments.unsigned(call[0]))
        guard let position = partition.queue.position(ofID: id) else { throw PlaybackError.noSuchSong }
        let range = position..<(position + 1)
        try partition.move(range, to: try moveDestination(call[1], range: range, partition))
        return .ok
    }

    /// MPD 0.24.13's ParseMoveDestination (src/command/PositionArg.cxx): a range holding the
    /// current song cannot move relative to it; otherwise the current position is first taken
    /// as it will be once the range is lifted out (less the range's length when the song is
    /// after it), then `+N` lands N after it (`current + 1 + N`) and `-N` N before it
    /// (`current - N`), the limit for N being `length - current - count` both ways. Checked
    /// against 288 answers recorded from 0.24.13 (RelativePositionTests). Its limits are
    /// unsigned, so an invalid source range can make them wrap (and not apply), as here.
    static func moveDestination(_ text: String, range: Range<Int>, _ partition: Partition) throws -> Int {
        let length = partition.queue.count
        func limit(_ value: Int) -> UInt { value < 0 ? UInt(UInt32.max) : UInt(value) }
        guard let sign = text.first, sign == "+" || sign == "-" else {
            return Int(try Arguments.unsigned(text, max: limit(length - range.count)))
        }
        guard var current = partition.currentPosition else { throw ProtocolError(.playerSync, "No current song") }
        if range.contains(current) { throw ProtocolError.argument("Cannot move current song relative to itself") }
        if current >= range.upperBound { current -= range.count }
        let offset = Int(try Arguments.unsigned(String(text.dropFirst()), max: limit(length - current - range.count)))
        let destination = sign == "+" ? current + 1 + offset : current - offset
        // 0.24.13 computes `current - N` unsigned: before the first song it wraps, and MPD
        // crashes (`move 3:5 -1` with the first song current); here it is a bad index.
        guard destination >= 0, destination <= length - range.count else { throw PlaybackError.badSongIndex }
        return destination
    }

    static func swap(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let first = Int(try Arguments.unsigned(call[0]))
        let second = Int(try Arguments.unsigned(call[1]))
        try call.session.partition.swap(first, second)
        return .ok
    }

    static func swapID(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let partition = call.session.partition
        let first = Int(try Arguments.unsigned(call[0]))
        let second = Int(try Arguments.unsigned(call[1]))
        guard let a = partition.queue.position(ofID: first), let b = partition.queue.position(ofID: second) else {
            throw PlaybackError.noSuchSong
        }
        try partition.swap(a, b)
        return .ok
    }

    static func clear(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        call.session.partition.clear()
        return .ok
    }

    static func shuffle(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let partition = call.session.partition
        let count = partition.queue.count
        let range = try call.arguments.first.map { try Arguments.range($0) } ?? .all
        guard range.start <= count else { throw PlaybackError.badSongIndex }
        try partition.shuffle(range.start..<max(range.start, min(range.end ?? count, count)))
        return .ok
    }

    static func prio(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let partition = call.session.partition
        let priority = UInt8(try Arguments.unsigned(call[0], max: 255))
        for argument in call.arguments.dropFirst() {
            let range = try Arguments.range(argument)
            let count = partition.queue.count
            guard range.start <= count else { throw PlaybackError.badSongIndex }
            let end = min(range.end ?? count, count)
            try partition.setPriority(priority, positions: Array(range.start..<max(range.start, end)))
        }
        return .ok
    }

    static func prioID(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let partition = call.session.partition
        let priority = UInt8(try Arguments.unsigned(call[0], max: 255))
        for argument in call.arguments.dropFirst() {
            let id = Int(try Arguments.unsigned(argument))
            guard let position = partition.queue.position(ofID: id) else { throw PlaybackError.noSuchSong }
            try partition.setPriority(priority, positions: [position])
        }
        return .ok
    }

    static func rangeID(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let id = Int(try Arguments.unsigned(call[0]))
        guard let range = parseTimeRange(call[1]) else { throw ProtocolError.argument("Bad range") }
        try call.session.partition.setRange(range.start == 0 && range.end == nil ? nil : range, id: id)
        return .ok
    }

    /// `START:END` in fractional seconds, either side optional; the end must follow the start.
    static func parseTimeRange(_ text: String) -> SongRange? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        func seconds(_ part: Substring) -> Int?? {
            if part.isEmpty { return .some(nil) }
            guard let value = try? Arguments.float(String(part)), value >= 0 else { return nil }
            return .some(SongTime.milliseconds(fromSeconds: value))
        }
        guard let start = seconds(text[..<colon]), let end = seconds(text[text.index(after: colon)...]) else { return nil }
        let startMilliseconds = start ?? 0
        if let end, end != 0, end <= startMilliseconds { return nil }
        return SongRange(start: startMilliseconds, end: end == 0 ? nil : end)
    }

    static func addTagID(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let partition = call.session.partition
        let id = Int(try Arguments.unsigned(call[0]))
        guard let type = TagType(name: call[1]) else { throw ProtocolError.argument("Unknown tag type: \(call[1])") }
        let value = call[2]
        try editTags(partition, id: id) { $0.tag.items.append(TagItem(type, value)) }
        return .ok
    }

    static func clearTagID(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let partition = call.session.partition
        let id = Int(try Arguments.unsigned(call[0]))
        var type: TagType?
        if call.arguments.count > 1 {
            guard let parsed = TagType(name: call[1]) else { throw ProtocolError.argument("Unknown tag type: \(call[1])") }
            type = parsed
        }
        try editTags(partition, id: id) { song in
            if let type { song.tag.items.removeAll { $0.type == type } } else { song.tag.items.removeAll() }
        }
        return .ok
    }

    /// Only songs that are not files of the library may have their tags edited (as MPD).
    private static func editTags(_ partition: Partition, id: Int, _ change: (inout Song) -> Void) throws {
        guard let position = partition.queue.position(ofID: id) else { throw PlaybackError.noSuchSong }
        guard partition.queue[position].song.isURL else {
            throw ProtocolError(.permission, "Cannot edit tags of local file")
        }
        try partition.updateSong(id: id, change)
    }
}
