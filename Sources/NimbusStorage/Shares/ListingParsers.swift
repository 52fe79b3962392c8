import Glibc

/// One entry of a folder listing from an SFTP or FTP server.
struct ListedEntry: Equatable {
    enum Kind: Equatable { case file, directory, link }
    var name: String
    var kind: Kind
    var size: Int64
    /// Seconds since 1970 (0: unknown).
    var modified: Int64
    /// What the server says identifies the file (MLSD's `unique`): a folder reached again
    /// through a link loop says the same.
    var unique: String? = nil

    /// `unique` as a number for the update's loop check (FNV-1a).
    var inode: UInt64? {
        guard let unique, !unique.isEmpty else { return nil }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in unique.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }
}

/// `ls -l` lines as SFTP servers send them (OpenSSH's sftp-server, and most FTP `LIST`s):
/// `-rw-r--r--  1 bob  bob  1234 Mar  5 12:00 name with spaces` or `… Mar  5  2024 name`.
enum LongListing {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func parse(_ line: String, now: Int64 = Int64(time(nil))) -> ListedEntry? {
        let kind: ListedEntry.Kind
        switch line.first {
        case "-": kind = .file
        case "d": kind = .directory
        case "l": kind = .link
        default: return nil
        }
        // Eight fields, then the name (which keeps its own spaces).
        var fields: [Substring] = []
        var rest = Substring(line)
        while fields.count < 8 {
            rest = rest.drop { $0 == " " }
            guard let end = rest.firstIndex(of: " ") else { return nil }
            fields.append(rest[..<end])
            rest = rest[rest.index(after: end)...]
        }
        // Exactly one space separates the date from the name; more belong to the name.
        var name = String(rest)
        if kind == .link, let arrow = name.range(of: " -> ") { name = String(name[..<arrow.lowerBound]) }
        guard !name.isEmpty, let size = Int64(fields[4]), let month = months.firstIndex(of: String(fields[5])), let day = Int32(fields[6])
        else { return nil }
        var components = tm()
        components.tm_mon = Int32(month)
        components.tm_mday = day
        let clock = fields[7].split(separator: ":")
        if clock.count == 2, let hour = Int32(clock[0]), let minute = Int32(clock[1]) {
            // Within the last half year: the year is this one, or last year's for a date ahead.
            components.tm_hour = hour
            components.tm_min = minute
            var current = tm()
            var seconds = time_t(now)
            gmtime_r(&seconds, &current)
            components.tm_year = current.tm_year
            if timegm(&components) > now + 86_400 { components.tm_year -= 1 }
        } else if let year = Int32(fields[7]) {
            components.tm_year = year - 1900
        } else {
            return nil
        }
        return ListedEntry(name: name, kind: kind, size: size, modified: Int64(timegm(&components)))
    }
}

/// RFC 3659 `MLSD` lines: `type=file;size=1234;modify=20240305120000; name`.
enum MachineListing {
    static func parse(_ line: String) -> ListedEntry? {
        guard let space = line.firstIndex(of: " ") else { return nil }
        let name = String(line[line.index(after: space)...])
        var facts: [String: String] = [:]
        for fact in line[..<space].split(separator: ";") {
            let parts = fact.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { facts[parts[0].lowercased()] = String(parts[1]) }
        }
        let kind: ListedEntry.Kind
        switch facts["type"]?.lowercased() {
        case "file": kind = .file
        case "dir": kind = .directory
        case "os.unix=symlink", "os.unix=slink": kind = .link
        default: return nil  // cdir, pdir, and what is neither
        }
        guard !name.isEmpty else { return nil }
        return ListedEntry(
            name: name, kind: kind, size: facts["size"].flatMap { Int64($0) } ?? 0, modified: facts["modify"].flatMap(time) ?? 0,
            unique: facts["unique"])
    }

    /// `YYYYMMDDHHMMSS[.sss]`, UTC.
    static func time(_ text: String) -> Int64? {
        let digits = Array(text.prefix(14).utf8)
        guard digits.count == 14, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        func number(_ range: Range<Int>) -> Int32 { digits[range].reduce(0) { $0 * 10 + Int32($1 - 48) } }
        var components = tm()
        components.tm_year = number(0..<4) - 1900
        components.tm_mon = number(4..<6) - 1
        components.tm_mday = number(6..<8)
        components.tm_hour = number(8..<10)
        components.tm_min = number(10..<12)
        components.tm_sec = number(12..<14)
        return Int64(timegm(&components))
    }
}
