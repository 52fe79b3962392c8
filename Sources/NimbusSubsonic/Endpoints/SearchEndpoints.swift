import Foundation

/// `search3`/`search2` and the album and song lists. An empty query — `query=`, no
/// `query`, or `query=""` (the two quote characters Symfonium sends) — is everything, so a
/// full sync pages through the library in the stable id order, each page costing its size.
extension SubsonicService {
    enum SearchEndpoints {
        static func search3(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            .node(try search(call, name: "searchResult3"))
        }

        static func search2(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            .node(try search(call, name: "searchResult2"))
        }

        static func getAlbumList2(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            .node(try albumList(call, name: "albumList2"))
        }

        static func getAlbumList(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            .node(try albumList(call, name: "albumList"))
        }

        static func getRandomSongs(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let library = call.library
            let size = try call.arguments.int("size", default: 10, range: 0...500)
            let genre = try call.arguments.optional("genre")
            let from = try call.arguments.optionalInt("fromYear", range: 0...9999)
            let to = try call.arguments.optionalInt("toYear", range: 0...9999)
            let folder = try call.arguments.optionalInt("musicFolderId", range: 0...Int(Int32.max))
            let matching = library.songs.indices.filter { index in
                let entry = library.songs[index]
                if let folder, entry.folder != folder { return false }
                if let genre, !entry.song.tag.values(.genre).contains(genre) { return false }
                let year = ItemNodes.year(entry.song.tag)
                if let from, (year ?? Int.min) < from { return false }
                if let to, (year ?? Int.max) > to { return false }
                return true
            }
            var node = SubsonicNode("randomSongs")
            node.add(list: "song", matching.shuffled().prefix(size).map { call.song(library.songs[$0]) })
            return .node(node)
        }
    }

    /// The words of a query, folded; empty for "everything".
    static func words(_ query: String?) -> [String] {
        var text = query ?? ""
        if text == "\"\"" { text = "" }
        text = text.replacingOccurrences(of: "*", with: " ").replacingOccurrences(of: "\"", with: " ")
        return SearchText.fold(text).split(separator: " ").map(String.init)
    }

    static func search(_ call: SubsonicCall, name: String) throws(SubsonicError) -> SubsonicNode {
        let library = call.library, arguments = call.arguments
        let words = words(try arguments.optional("query"))
        let folder = try arguments.optionalInt("musicFolderId", range: 0...Int(Int32.max))
        func page(_ prefix: String, _ fallback: Int) throws(SubsonicError) -> (offset: Int, count: Int) {
            (try arguments.int(prefix + "Offset", default: 0, range: 0...Int(Int32.max)), try arguments.count(prefix + "Count", default: fallback))
        }
        let artists = try page("artist", 20), albums = try page("album", 20), songs = try page("song", 20)
        let text = words.isEmpty ? nil : library.searchText
        var result = SubsonicNode(name)
        result.add(
            list: "artist",
            select(library.artists.count, artists) { index in
                if let folder, !library.artists[index].albums.contains(where: { library.albums[$0].folders.contains(folder) }) { return false }
                return text.map { SearchText.matches($0.artists[index], words) } ?? true
            }.map { call.artist($0) })
        result.add(
            list: "album",
            select(library.albums.count, albums) { index in
                if let folder, !library.albums[index].folders.contains(folder) { return false }
                return text.map { SearchText.matches($0.albums[index], words) } ?? true
            }.map { call.album($0) })
        result.add(
            list: "song",
            select(library.songs.count, songs) { index in
                if let folder, library.songs[index].folder != folder { return false }
                return text.map { SearchText.matches($0.songs[index], words) } ?? true
            }.map { call.song(library.songs[$0]) })
        return result
    }

    /// The indexes `0..<count` that `accept`, paged; stops as soon as the page is full.
    static func select(_ count: Int, _ page: (offset: Int, count: Int), accept: (Int) -> Bool) -> [Int] {
        guard page.count > 0 else { return [] }
        var skipped = 0
        var picked: [Int] = []
        for index in 0..<count where accept(index) {
            if skipped < page.offset {
                skipped += 1
                continue
            }
            picked.append(index)
            if picked.count == page.count { break }
        }
        return picked
    }

    static func albumList(_ call: SubsonicCall, name: String) throws(SubsonicError) -> SubsonicNode {
        let library = call.library, arguments = call.arguments
        let type = try arguments.required("type")
        let size = try arguments.count("size", default: 10)
        let offset = try arguments.int("offset", default: 0, range: 0...Int(Int32.max))
        let folder = try arguments.optionalInt("musicFolderId", range: 0...Int(Int32.max))
        var order = Array(library.albums.indices)
        if let folder { order = order.filter { library.albums[$0].folders.contains(folder) } }
        let albums = library.albums
        switch type {
        case "random": order.shuffle()
        case "newest": order.sort { albums[$0].created > albums[$1].created }
        case "alphabeticalByName": order.sort { sortName(albums[$0].name) < sortName(albums[$1].name) }
        case "alphabeticalByArtist":
            order.sort { (sortName(albums[$0].artist), sortName(albums[$0].name)) < (sortName(albums[$1].artist), sortName(albums[$1].name)) }
        case "byYear":
            let from = try arguments.int("fromYear", default: 0, range: 0...9999)
            let to = try arguments.int("toYear", default: 9999, range: 0...9999)
            order = order.filter { albums[$0].year.map { (min(from, to)...max(from, to)).contains($0) } ?? false }
            order.sort { from <= to ? (albums[$0].year ?? 0) < (albums[$1].year ?? 0) : (albums[$0].year ?? 0) > (albums[$1].year ?? 0) }
        case "byGenre":
            let genre = try arguments.required("genre")
            order = order.filter { albums[$0].songs.contains { library.songs[$0].song.tag.values(.genre).contains(genre) } }
        case "highest", "frequent", "recent", "starred":
            // From the stickers: the album's own rating and star, its songs' plays.
            let annotations = call.annotations
            let notes = Dictionary(uniqueKeysWithValues: order.map { ($0, annotations.album($0, in: library)) })
            switch type {
            case "highest":
                order = order.filter { notes[$0]!.rating != nil }.sorted { (notes[$0]!.rating!, $1) > (notes[$1]!.rating!, $0) }
            case "frequent":
                order = order.filter { notes[$0]!.playCount > 0 }.sorted { (notes[$0]!.playCount, $1) > (notes[$1]!.playCount, $0) }
            case "recent":
                order = order.filter { notes[$0]!.lastPlayed != nil }.sorted { (notes[$0]!.lastPlayed!, $1) > (notes[$1]!.lastPlayed!, $0) }
            default:
                order = order.filter { notes[$0]!.starred }.sorted { sortName(albums[$0].name) < sortName(albums[$1].name) }
            }
        default:
            throw SubsonicError(0, "Unknown list type: \(type.prefix(32))")
        }
        var node = SubsonicNode(name)
        node.add(list: "album", order.dropFirst(offset).prefix(size).map { call.album($0) })
        return node
    }
}

/// Case- and accent-insensitive matching: each word of the query must occur in the item's
/// title, artist, album or album artist.
enum SearchText {
    static func fold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    static func matches(_ haystack: String, _ words: [String]) -> Bool { words.allSatisfy { haystack.contains($0) } }
}
