import Glibc
import NimbusModel
import NimbusStorage
import NimbusSupport

/// MPD's `.mpdignore`: a folder's file lists shell patterns (one per line, `#` comments,
/// blank lines skipped), matched with fnmatch(3) against each name in that folder and in
/// every folder below it, as MPD's `ExcludeList` does. The file is read on every walk of its
/// folder, so an edit counts at the next update.
struct IgnoreList: Sendable {
    static let fileName = ".mpdignore"
    /// A file larger than this is not a list of patterns someone wrote.
    static let maximumBytes = 1 << 20

    private(set) var patterns: [String] = []

    var isEmpty: Bool { patterns.isEmpty }

    func excludes(_ name: String) -> Bool {
        patterns.contains { fnmatch($0, name, 0) == 0 }
    }

    /// These patterns and those of `text`, an `.mpdignore` file's content.
    func adding(_ text: String) -> IgnoreList {
        var list = self
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let pattern = Self.trimmed(line)
            if !pattern.isEmpty, !pattern.hasPrefix("#") { list.patterns.append(pattern) }
        }
        return list
    }

    /// These patterns and those of the `.mpdignore` in the folder at `path`, if it has one
    /// (`listed`: the folder's listing names it, so no lookup is needed to know).
    func adding(folder path: String, storage: any Storage, listed: Bool? = nil, logger: Logger) -> IgnoreList {
        let file = StoragePath.join(path, Self.fileName)
        if listed == false { return self }
        if listed == nil {
            guard let entry = try? storage.stat(file), entry.kind == .file else { return self }
        }
        do {
            let stream = try storage.open(file)
            let bytes = try stream.readToEnd(limit: Self.maximumBytes)
            return adding(String(decoding: bytes, as: UTF8.self))
        } catch {
            logger.warning("Cannot read \"\(file)\": \(error.message); its patterns are not applied")
            return self
        }
    }

    /// `line` without the blanks around it (MPD strips them too).
    private static func trimmed(_ line: Substring) -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = line.firstIndex(where: { !blank($0) }), let end = line.lastIndex(where: { !blank($0) }) else { return "" }
        return String(line[start...end])
    }

    /// The patterns in force in the folder at `path`: those of every folder from the root down.
    static func inherited(at path: String, storage: any Storage, logger: Logger) -> IgnoreList {
        var list = IgnoreList().adding(folder: "", storage: storage, logger: logger)
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix = StoragePath.join(prefix, String(component))
            list = list.adding(folder: prefix, storage: storage, logger: logger)
        }
        return list
    }
}
