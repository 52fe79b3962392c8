import NimbusModel

/// MPD's pls plugin: the `[playlist]` section's `FileN`, `TitleN` (the `Title` tag) and
/// `LengthN` (seconds; 0 or less is unknown), up to `NumberOfEntries` and 65,536, in N's order.
struct PLSPlaylist: PlaylistFormat {
    let name = "pls"
    let suffixes = ["pls"]
    let mimeTypes = ["audio/x-scpls"]
    static let maximumEntries = 65_536

    func sniff(_ head: [UInt8]) -> Bool { playlistLines(head).first?.trimmingSpaces.lowercased() == "[playlist]" }

    func parse(_ bytes: [UInt8]) -> [PlaylistEntry]? {
        let lines = playlistLines(bytes).map { $0.trimmingSpaces }
        guard let start = lines.firstIndex(where: { $0.lowercased() == "[playlist]" }) else { return nil }
        var files: [Int: String] = [:], titles: [Int: String] = [:], lengths: [Int: Int] = [:]
        var count: Int?
        for line in lines[(start + 1)...] {
            if line.isEmpty || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") { break }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingSpaces.lowercased()
            let value = line[line.index(after: equals)...].trimmingSpaces
            if key == "numberofentries" {
                count = Int(value).map { min(max($0, 0), Self.maximumEntries) }
                continue
            }
            for (prefix, assign) in [("file", 0), ("title", 1), ("length", 2)] where key.hasPrefix(prefix) {
                guard let index = Int(key.dropFirst(prefix.count)), index >= 1, index <= Self.maximumEntries else { continue }
                switch assign {
                case 0: files[index] = value
                case 1: titles[index] = value
                default: lengths[index] = Int(value)
                }
            }
        }
        // MPD reads entries up to NumberOfEntries (none when it is 0) and refuses a file
        // without it; a file without it is read whole here (many players write none).
        return files.keys.sorted().filter { index in count.map { index <= $0 } ?? true }.compactMap { index in
            guard let file = files[index], !file.isEmpty else { return nil }
            var tag = Tag(duration: lengths[index].flatMap { $0 > 0 ? $0 * 1000 : nil })
            if let title = titles[index], !title.isEmpty { tag.add(.title, title) }
            return PlaylistEntry(uri: file, tag: tag)
        }
    }
}
