/// Finds the first thing wrong with a state file, so a damaged one is named in the log instead
/// of silently costing the user their queue. The codec itself stays lenient, as MPD's is.
public enum StateFileCheck {
    public struct Problem: Equatable, Sendable {
        /// 1-based; 0 for the file as a whole.
        public let line: Int
        public let reason: String
    }

    public static func firstProblem(in bytes: [UInt8]) -> Problem? {
        guard !bytes.isEmpty else { return Problem(line: 0, reason: "the file is empty") }
        var inQueue = false
        var inSong = false
        var number = 0
        for raw in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            if raw.contains(0) || raw.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0D }) {
                return Problem(line: number, reason: "binary data")
            }
            guard let line = String(validating: raw, as: UTF8.self) else {
                return Problem(line: number, reason: "not valid UTF-8")
            }
            if line.isEmpty { continue }
            switch line {
            case "playlist_begin": inQueue = true
            case "playlist_end": inQueue = false
            case "song_end": inSong = false
            default:
                if line.hasPrefix("song_begin: ") {
                    inSong = true
                } else if !line.contains(":") {
                    return Problem(line: number, reason: "\"\(line.prefix(40))\" is not a state line")
                }
            }
        }
        if inQueue || inSong { return Problem(line: number, reason: "the file ends inside the queue (truncated)") }
        return nil
    }
}
