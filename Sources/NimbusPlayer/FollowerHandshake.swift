/// Which song follows which, as the core sees it: MPD's "queued song" bookkeeping
/// (`playlist::queued`, `UpdateQueuedSong`, `SyncWithPlayer`) as one value with no clock, no
/// threads and no queue in it, so every turn of the conversation with the decoder can be
/// tested as a script of events.
///
/// The conversation: the core starts a song with its follower already named; the decoder
/// reports each song it takes up (`decoding`), the clock output each song whose first audio
/// it reaches (`started`), and songs that could not be opened (`failed`). When a song starts
/// to be heard its follower is named; when the queue changes, the follower named last is
/// checked again and, if the decoder already took up the old one and nothing of it was heard,
/// the decoder is told to drop it. The machine decides *when* a follower must be chosen; the
/// core decides *which* (it knows the queue, the order and the options) and hands the choice
/// back through `chose(_:for:)`.
public struct FollowerHandshake: Sendable {
    /// What the core does after an event, in order.
    public enum Action: Sendable {
        /// Tell the decoder which song follows `after` (nil: the queue ends there); a cloud
        /// song's head and tail are fetched now, so the join is gapless.
        case setNext(PlayItem?, after: UInt64)
        /// The decoder took up `from`, which is no longer the follower: it drops it (unless
        /// some was heard) and continues with `with`.
        case replace(from: UInt64, with: PlayItem?)
        /// Work out the song that should follow `of` now and answer with `chose(_:for:)`.
        case chooseFollower(of: UInt64)
        /// The queue moved on by itself to the next song: the song heard before it ends
        /// (consume mode removes it, single oneshot is spent, the new song loses its priority).
        case advance
        /// A song started to be heard. `advanced`: the queue reached it by itself, and it loses
        /// its priority (MPD's SongStarted). `wakesPlayer` is false when the command that
        /// started it already woke `player` idlers (MPD wakes them once per command).
        case announce(advanced: Bool, wakesPlayer: Bool)
    }

    private var lastToken: UInt64 = 0
    /// Queue ids of the songs handed to the player since the last start, by token.
    private var queueIDs: [UInt64: Int] = [:]
    /// The song playback began with (play, seek, skip).
    public private(set) var startToken: UInt64?
    /// The song whose follower was named last.
    public private(set) var namedAfter: UInt64?
    /// The follower named last (nil: none, or the queue ends after `namedAfter`).
    public private(set) var follower: PlayItem?
    /// Songs the decoder reported taking up since the last start.
    private var taken: Set<UInt64> = []
    /// The song the outputs play (the clock output reached its first audio).
    public private(set) var playing: UInt64?

    public init() {}

    /// A token for a new play item: unique for the life of the partition, and growing along
    /// the chain, so an answer for an earlier song can be told from one for a later song.
    public mutating func newToken() -> UInt64 {
        lastToken += 1
        return lastToken
    }

    /// The queue id the item `token` was made for, while it belongs to this playback.
    public func queueID(of token: UInt64) -> Int? { queueIDs[token] }

    /// The follower named last, if it is still the player's (to reuse rather than restart
    /// its decoding when the core chooses the same queue entry again).
    public var reusableFollower: PlayItem? { follower.flatMap { queueIDs[$0.token] != nil ? $0 : nil } }

    // MARK: events

    /// Playback starts with `item`, its follower named with it (events of earlier songs
    /// still in flight no longer count).
    public mutating func start(_ item: PlayItem, follower: PlayItem?) {
        reset()
        startToken = item.token
        queueIDs[item.token] = item.queueID
        name(follower, after: item.token)
    }

    /// Playback stopped, by a command or at the end of the queue.
    public mutating func reset() {
        queueIDs.removeAll()
        taken.removeAll()
        startToken = nil
        namedAfter = nil
        follower = nil
        playing = nil
    }

    /// The decoder took up `token`. A song taken up after its follower was renamed is
    /// dropped again (unless heard).
    public mutating func decoding(_ token: UInt64) -> [Action] {
        taken.insert(token)
        guard token != startToken, token != follower?.token, queueIDs[token] != nil, token != playing else { return [] }
        return [.replace(from: token, with: follower)]
    }

    /// The clock output reached the first audio of `token`; the core checked the song is
    /// still in the queue.
    public mutating func started(_ token: UInt64) -> [Action] {
        guard queueIDs[token] != nil else { return [] }
        let previous = playing
        playing = token
        let advanced = previous.map { $0 != token } ?? false
        var actions: [Action] = []
        if let previous, advanced {
            queueIDs[previous] = nil
            actions.append(.advance)
        }
        // Tokens grow along the chain: a follower already named for a later song (one that
        // failed before being heard) is checked again rather than replaced by an answer for
        // this one.
        if let namedAfter, namedAfter >= token {
            actions.append(.chooseFollower(of: namedAfter))
        } else {
            actions.append(.chooseFollower(of: token))
        }
        actions.append(.announce(advanced: advanced, wakesPlayer: advanced || token != startToken))
        return actions
    }

    /// `token` could not be decoded. The decoder goes on with the follower of a song that
    /// broke before being heard: if it was the follower named last, the next one is needed
    /// now, since the song will never start.
    public mutating func failed(_ token: UInt64) -> [Action] {
        guard token == follower?.token, queueIDs[token] != nil else { return [] }
        return [.chooseFollower(of: token)]
    }

    /// The queue or the options changed: the follower named last may no longer be right.
    public func queueEdited() -> [Action] {
        namedAfter.map { [.chooseFollower(of: $0)] } ?? []
    }

    /// The core's answer to `.chooseFollower(of: token)`. The same follower again changes
    /// nothing; a new follower of the song named last replaces the old one in the decoder
    /// too when it was taken up already and not heard.
    public mutating func chose(_ item: PlayItem?, for token: UInt64) -> [Action] {
        guard token == namedAfter else {
            name(item, after: token)
            return [.setNext(item, after: token)]
        }
        guard item?.token != follower?.token else { return [] }
        let old = follower?.token
        name(item, after: token)
        var actions: [Action] = [.setNext(item, after: token)]
        if let old, taken.contains(old), old != playing { actions.append(.replace(from: old, with: item)) }
        return actions
    }

    private mutating func name(_ item: PlayItem?, after token: UInt64) {
        namedAfter = token
        follower = item
        if let item { queueIDs[item.token] = item.queueID }
    }
}
