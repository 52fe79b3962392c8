/// MPD's idle subsystems as bits, so a burst of changes ORs into one mask and wakes a client once.
public struct IdleEvents: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let database = IdleEvents(rawValue: 1 << 0)
    public static let storedPlaylist = IdleEvents(rawValue: 1 << 1)
    public static let playlist = IdleEvents(rawValue: 1 << 2)
    public static let player = IdleEvents(rawValue: 1 << 3)
    public static let mixer = IdleEvents(rawValue: 1 << 4)
    public static let output = IdleEvents(rawValue: 1 << 5)
    public static let options = IdleEvents(rawValue: 1 << 6)
    public static let sticker = IdleEvents(rawValue: 1 << 7)
    public static let update = IdleEvents(rawValue: 1 << 8)
    public static let subscription = IdleEvents(rawValue: 1 << 9)
    public static let message = IdleEvents(rawValue: 1 << 10)
    public static let neighbor = IdleEvents(rawValue: 1 << 11)
    public static let mount = IdleEvents(rawValue: 1 << 12)
    public static let partition = IdleEvents(rawValue: 1 << 13)

    /// MPD's subsystems: what a bare `idle` waits for.
    public static let all = IdleEvents(rawValue: (1 << 14) - 1)

    /// Nimbus's own, offline download progress: only for clients that name it. mpc, ncmpcpp,
    /// ncmpc and python-mpd2 idle on everything and would wake twice a second otherwise.
    public static let offline = IdleEvents(rawValue: 1 << 14)
    /// Nimbus's own, a cloud account added, removed, signed in or out, or its sign-in moved
    /// on: only for clients that name it (a client waiting on a sign-in).
    public static let account = IdleEvents(rawValue: 1 << 15)
    /// Nimbus's own, an equalizer preset or an output's sound chain changed: only for clients
    /// that name it (every client already gets `output`, which is what MPD clients redraw on).
    public static let eq = IdleEvents(rawValue: 1 << 16)
    /// Nimbus's own, the analysis pass measured a song or ran out of work: only for clients
    /// that name it (the progress bar of `nimbus analysis` and the web page's Settings).
    public static let analysis = IdleEvents(rawValue: 1 << 17)
    static let optInNames = ["offline", "account", "eq", "analysis"]

    /// Subsystem names in the order MPD prints `changed:` lines.
    public static let names = [
        "database", "stored_playlist", "playlist", "player", "mixer", "output", "options", "sticker",
        "update", "subscription", "message", "neighbor", "mount", "partition",
    ]

    /// Parses one subsystem name, case-insensitively as MPD does.
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let index = (Self.names + Self.optInNames).firstIndex(of: lowered) else { return nil }
        self.init(rawValue: 1 << UInt32(index))
    }

    public var names: [String] {
        let every = Self.names + Self.optInNames
        return every.indices.filter { rawValue & (1 << UInt32($0)) != 0 }.map { every[$0] }
    }
}
