/// A reproducible random source (SplitMix64): a failing fuzz or soak run is replayed from its
/// seed.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Protocol lines for fuzzing: real requests as clients send them, and mutations of them that
/// aim at number parsing, quoting, lengths and bytes no client sends.
public enum ProtocolMutations {
    /// Requests covering every area of the protocol, as mpc, ncmpcpp and python-mpd send them.
    public static let corpus: [String] = [
        "status", "currentsong", "stats", "ping", "play 0", "play", "pause", "pause 1", "stop", "next", "previous",
        "seek 0 10", "seekid 1 5.5", "seekcur +5", "seekcur -5", "seekcur 30", "setvol 50", "volume +5", "getvol",
        "random 1", "repeat 0", "single oneshot", "consume 1", "crossfade 3", "mixrampdb -17", "mixrampdelay 2",
        "replay_gain_mode track", "replay_gain_status", "add \"\"", "add a.wav", "addid \"b.wav\" 0", "delete 0",
        "delete 1:3", "deleteid 2", "move 0 1", "move 1:3 0", "moveid 1 +0", "moveid 2 -1", "swap 0 1", "swapid 1 2",
        "shuffle", "shuffle 0:2", "prio 10 0:2", "prioid 5 1", "rangeid 1 1.5:3", "rangeid 1 :", "playlistinfo",
        "playlistinfo 0:2", "playlistid 1", "plchanges 0", "plchangesposid 0", "playlistfind title \"x\"",
        "playlistsearch any \"a\"", "clear", "lsinfo", "lsinfo \"\"", "listall", "listallinfo", "listfiles",
        "find title \"Sine\"", "search any \"s\"", "find \"(title == 'x')\"", "search \"(any contains 'a')\" window 0:2",
        "count artist \"x\"", "list album group artist", "list artist", "update", "rescan", "albumart a.wav 0",
        "readpicture a.wav 0", "readcomments a.wav", "save x", "load x", "load x 0:1 0", "rm x", "rename x y",
        "listplaylists", "listplaylist x", "listplaylistinfo x", "playlistadd x a.wav", "playlistdelete x 0",
        "playlistmove x 0 1", "playlistclear x", "outputs", "enableoutput 0", "disableoutput 0", "toggleoutput 0",
        "outputset 0 dop 1", "tagtypes", "tagtypes clear", "tagtypes enable Artist", "tagtypes all", "commands",
        "notcommands", "urlhandlers", "decoders", "subscribe chat", "sendmessage chat hi", "readmessages",
        "channels", "unsubscribe chat", "sticker get song a.wav rating", "sticker set song a.wav rating 5",
        "sticker list song a.wav", "sticker find song \"\" rating", "listpartitions", "newpartition p",
        "partition default", "delpartition p", "listmounts", "binarylimit 128", "idle", "noidle",
        "command_list_begin", "command_list_ok_begin", "command_list_end", "clearerror", "findadd title \"x\"",
        "searchadd any \"a\" position 0", "searchaddpl x any \"a\"", "addtagid 1 artist x", "cleartagid 1",
    ]

    /// Numbers that break careless parsing.
    public static let numbers = [
        "-1", "0", "-0", "+5", "-2", "4294967295", "4294967296", "9223372036854775807", "9223372036854775808",
        "18446744073709551616", "1e16", "1e19", "1e39", "1e309", "-1e30", "inf", "+inf", "-inf", "nan", "0x10", "1.",
        ".5", "1:", ":1", "3:2", "-3:-1", "1e309:", "99999999999999999999:",
    ]

    public static func mutate(_ line: String, using random: inout SeededRandom) -> [UInt8] {
        var words = line.split(separator: " ").map(String.init)
        switch random.next() % 9 {
        case 0, 1:
            // A number where one was, or a new argument.
            let number = numbers.randomElement(using: &random)!
            if words.count > 1 { words[Int(random.next() % UInt64(words.count - 1)) + 1] = number } else { words.append(number) }
        case 2:
            words.append(contentsOf: Array(repeating: numbers.randomElement(using: &random)!, count: Int(random.next() % 100)))
        case 3:
            if let index = words.indices.randomElement(using: &random) { words[index] = "\"" + words[index] }
        default:
            break
        }
        var bytes = Array(words.joined(separator: " ").utf8)
        switch random.next() % 6 {
        case 0:
            for _ in 0..<(1 + random.next() % 3) where !bytes.isEmpty {
                bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            }
        case 1:
            bytes.insert(UInt8(truncatingIfNeeded: random.next() % 0x20), at: Int(random.next() % UInt64(bytes.count + 1)))
        case 2:
            bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1))))
        default:
            break
        }
        bytes.removeAll { $0 == 0x0A }
        // Most lines keep a command's first letter, so they reach the commands instead of
        // ending the connection as MPD does for anything else; one in twenty does not.
        if let first = line.utf8.first, random.next() % 20 != 0 {
            if bytes.isEmpty { bytes = [first] } else { bytes[0] = first }
        }
        return bytes
    }
}
