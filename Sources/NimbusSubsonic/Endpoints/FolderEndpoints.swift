import NimbusLibrary

/// Folder browsing (`getIndexes`, `getMusicDirectory`), as DSub's and Ultrasonic's "folders"
/// view uses it: the music directory's tree, each mount (cloud account, share, podcasts) a
/// music folder of its own. Directory ids come from paths as song ids do (`d` + MD5).
extension SubsonicService {
    enum FolderEndpoints {
        static func getIndexes(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let library = call.library
            let folder = try call.arguments.optionalInt("musicFolderId", range: 0...Int(Int32.max))
            let lastModified = library.updated * 1000
            var node = SubsonicNode(
                "indexes", [("lastModified", .int(lastModified)), ("ignoredArticles", .string(ignoredArticles.joined(separator: " ")))])
            // Nothing changed since the client last looked: an empty answer, as the spec says.
            if let since = try call.arguments.optionalInt("ifModifiedSince", range: 0...Int.max), since >= lastModified {
                return .node(node)
            }
            let mounts = call.backend.mounts()
            var top: [(name: String, path: String)] = []
            var songs: [String] = []
            if let folder, folder != 0 {
                guard let mount = mounts.first(where: { SubsonicIDs.folder($0) == folder }) else { throw .notFound("Music folder") }
                let directory = library.root.directory(at: mount)
                top = directory?.directories.map { ($0.name, mount + "/" + $0.name) } ?? []
                songs = directory?.songs.map { mount + "/" + $0.name } ?? []
            } else {
                let mounted = Set(mounts)
                top = library.root.directories.filter { folder == nil || !mounted.contains($0.name) }.map { ($0.name, $0.name) }
                songs = library.root.songs.map(\.name)
            }
            var groups: [String: [(name: String, path: String)]] = [:]
            for entry in top { groups[indexLetter(entry.name), default: []].append(entry) }
            node.add(
                list: "index",
                groups.keys.sorted().map { letter in
                    var index = SubsonicNode("index", [("name", .string(letter))])
                    let members = groups[letter]!.sorted { sortName($0.name) < sortName($1.name) }
                    index.add(
                        list: "artist",
                        members.map { SubsonicNode("artist", [("id", .string(SubsonicIDs.directory($0.path))), ("name", .string($0.name))]) })
                    return index
                })
            node.add(list: "child", songs.compactMap { library.song(SubsonicIDs.song($0)).map { call.song($0, name: "child") } })
            return .node(node)
        }

        static func getMusicDirectory(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let library = call.library
            let id = try call.arguments.required("id")
            guard let path = library.directoryPath(id), let directory = library.root.directory(at: path) else {
                throw .notFound("Directory")
            }
            var node = SubsonicNode("directory")
            node.set("id", id)
            if !path.isEmpty {
                let parent = path.split(separator: "/").dropLast().joined(separator: "/")
                node.set("parent", SubsonicIDs.directory(parent))
            }
            node.set("name", path.isEmpty ? "Music" : directory.name)
            // A CUE sheet's virtual folder is not shown: its image is, as a song.
            var children: [SubsonicNode] = directory.directories.filter { $0.songs.first?.target == nil }.map { child in
                let childPath = path.isEmpty ? child.name : path + "/" + child.name
                var entry = SubsonicNode("child")
                entry.set("id", SubsonicIDs.directory(childPath))
                entry.set("parent", id)
                entry.set("isDir", true)
                entry.set("title", child.name)
                if let first = firstSong(child, childPath), let song = library.song(SubsonicIDs.song(first)) {
                    entry.set("coverArt", library.albums[song.album].id)
                    entry.set("album", library.albums[song.album].name)
                    entry.set("artist", library.albums[song.album].artist)
                }
                entry.set("created", ItemNodes.date(child.modified))
                return entry
            }
            let songs = directory.songs.compactMap { library.song(SubsonicIDs.song(path.isEmpty ? $0.name : path + "/" + $0.name)) }
            children += songs.sorted(by: ItemNodes.precedes).map { call.song($0, name: "child") }
            node.add(list: "child", children)
            return .node(node)
        }
    }

    /// The URI of the first song at or below a directory (its cover stands for the folder).
    static func firstSong(_ directory: LibraryDirectory, _ path: String) -> String? {
        if let song = directory.songs.first { return path + "/" + song.name }
        for child in directory.directories.prefix(8) {
            if let found = firstSong(child, path + "/" + child.name) { return found }
        }
        return nil
    }
}
