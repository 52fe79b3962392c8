import Foundation
import NimbusModel

/// Bookmarks are the resume positions the box already keeps: a song's `elapsed` sticker
/// (whole seconds, as myMPD writes it), so an audiobook paused on the box is a bookmark on
/// the phone and a bookmark made on the phone is where the box resumes it. The comment, who
/// made it and when ride along as stickers of their own.
///
/// Play queues are each user's own, kept by `SubsonicPlayQueues` across restarts, by id
/// (`getPlayQueue`) or by index (`getPlayQueueByIndex`, the `indexBasedQueue` extension).
extension SubsonicService {
    static let bookmarkNames = [SongStickers.resume, "bookmarkComment", "bookmarkUser", "bookmarkChanged"]

    enum BookmarkEndpoints {
        static func getBookmarks(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let stickers = call.backend.stickers
            let found = call.blocking { await stickers.read("song", bookmarkNames) }
            let library = call.library
            var items: [SubsonicNode] = []
            for (uri, values) in found.sorted(by: { $0.key < $1.key }) {
                guard let position = SongStickers.resumeMilliseconds(values[SongStickers.resume]),
                    let entry = library.song(SubsonicIDs.song(uri))
                else { continue }
                let changed = Int64(values["bookmarkChanged"] ?? "") ?? library.updated
                var node = SubsonicNode("bookmark")
                node.set("position", Int64(position))
                node.set("username", values["bookmarkUser"] ?? call.user?.name ?? "")
                node.set("comment", values["bookmarkComment"])
                node.set("created", ItemNodes.date(changed))
                node.set("changed", ItemNodes.date(changed))
                node.add(call.song(entry, name: "entry"))
                items.append(node)
            }
            var node = SubsonicNode("bookmarks")
            node.add(list: "bookmark", items)
            return .node(node)
        }

        static func createBookmark(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            guard let entry = call.library.song(try call.arguments.required("id")) else { throw .notFound("Song") }
            guard let text = try call.arguments.optional("position"), let position = Int64(text), position >= 0,
                position < 1_000_000_000_000
            else { throw .missing("position") }
            var changes: [StickerChange] = [
                .set(type: "song", uri: entry.uri, name: SongStickers.resume, value: SongStickers.resumeValue(milliseconds: Int(position))),
                .set(type: "song", uri: entry.uri, name: "bookmarkUser", value: call.user?.name ?? ""),
                .set(type: "song", uri: entry.uri, name: "bookmarkChanged", value: String(Int64(Date().timeIntervalSince1970))),
            ]
            if let comment = try call.arguments.optional("comment"), !comment.isEmpty {
                changes.append(.set(type: "song", uri: entry.uri, name: "bookmarkComment", value: String(comment.prefix(1000))))
            } else {
                changes.append(.delete(type: "song", uri: entry.uri, name: "bookmarkComment"))
            }
            return try call.change(changes)
        }

        static func deleteBookmark(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            guard let entry = call.library.song(try call.arguments.required("id")) else { throw .notFound("Song") }
            return try call.change(bookmarkNames.map { .delete(type: "song", uri: entry.uri, name: $0) })
        }

        static func getPlayQueue(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            try playQueue(call, byIndex: false)
        }

        static func getPlayQueueByIndex(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            try playQueue(call, byIndex: true)
        }

        static func savePlayQueue(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            try SubsonicService.savePlayQueue(call, byIndex: false)
        }

        static func savePlayQueueByIndex(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            try SubsonicService.savePlayQueue(call, byIndex: true)
        }
    }

    private static func playQueue(_ call: SubsonicCall, byIndex: Bool) throws(SubsonicError) -> SubsonicReply {
        let name = byIndex ? "playQueueByIndex" : "playQueue"
        guard let user = call.user?.name, let queue = call.service.playQueues.queue(of: user) else { return .node(nil) }
        let library = call.library
        // Songs gone from the library since are left out; the current one is found again.
        var entries: [SubsonicNode] = []
        var current: Int?
        for (index, uri) in queue.uris.enumerated() {
            guard let entry = library.song(SubsonicIDs.song(uri)) else { continue }
            if index == queue.current { current = entries.count }
            entries.append(call.song(entry, name: "entry"))
        }
        var node = SubsonicNode(name)
        if let current {
            if byIndex { node.set("currentIndex", current) } else { node.set("current", SubsonicIDs.song(queue.uris[queue.current!])) }
            node.set("position", queue.position)
        }
        node.set("username", user)
        node.set("changed", ItemNodes.date(queue.changed))
        node.set("changedBy", queue.changedBy)
        node.add(list: "entry", entries)
        return .node(node)
    }

    private static func savePlayQueue(_ call: SubsonicCall, byIndex: Bool) throws(SubsonicError) -> SubsonicReply {
        guard let user = call.user?.name else { throw .notAuthorized }
        let library = call.library
        let ids = call.arguments.all("id")
        guard ids.count <= SubsonicPlayQueues.limit else { throw .invalid("id") }
        var uris: [String] = []
        for id in ids {
            guard let entry = library.song(id) else { throw .notFound("Song") }
            uris.append(entry.uri)
        }
        var current: Int?
        if byIndex {
            current = try call.arguments.optionalInt("currentIndex", range: 0...Int.max)
            if let index = current, index >= uris.count { throw .invalid("currentIndex") }
        } else if let id = try call.arguments.optional("current"), !id.isEmpty {
            guard let index = ids.firstIndex(of: id) else { throw .invalid("current") }
            current = index
        }
        let position = Int64(try call.arguments.int("position", default: 0, range: 0...Int.max))
        let queue = uris.isEmpty
            ? nil
            : SubsonicPlayQueues.Queue(
                uris: uris, current: current ?? 0, position: current == nil ? 0 : position, changed: Int64(Date().timeIntervalSince1970),
                changedBy: try call.arguments.optional("c") ?? "")
        if let failure = call.service.playQueues.save(queue, for: user) { throw SubsonicError(0, failure) }
        return .node(nil)
    }
}
