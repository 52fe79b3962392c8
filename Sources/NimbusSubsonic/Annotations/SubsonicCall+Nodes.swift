/// The nodes endpoints send, annotated with the stars, ratings and plays the stickers hold —
/// so a phone syncing songs through `search3` sees what was starred on the box's clients.
extension SubsonicCall {
    /// The stickers, read once per request, on first use.
    var annotations: AnnotationSnapshot {
        if let known = state.annotations { return known }
        let stickers = backend.stickers
        let read = service.annotations { blocking { await AnnotationSnapshot.read(stickers) } }
        state.annotations = read
        return read
    }

    func song(_ entry: SubsonicLibrary.SongEntry, name: String = "song") -> SubsonicNode {
        var node = ItemNodes.song(entry, in: library, name: name)
        node.annotate(annotations.song(entry.uri), starredAt: entry.song.added ?? entry.song.modified)
        return node
    }

    func album(_ index: Int, name: String = "album") -> SubsonicNode {
        let library = library
        var node = ItemNodes.album(index, in: library, name: name)
        let annotations = annotations
        let annotation = annotations.anySongNoted ? annotations.album(index, in: library) : annotations.album(library.albums[index].name)
        node.annotate(annotation, starredAt: library.albums[index].created == Int64.max ? library.updated : library.albums[index].created)
        return node
    }

    func artist(_ index: Int, name: String = "artist") -> SubsonicNode {
        var node = ItemNodes.artist(index, in: library, name: name)
        node.annotate(annotations.artist(library.artists[index].name), starredAt: library.updated)
        return node
    }
}

/// What one request has worked out so far (it runs on one worker thread from start to end).
final class CallState: @unchecked Sendable {
    var annotations: AnnotationSnapshot?
}
