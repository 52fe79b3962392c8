import NimbusModel

/// Makes the songs one update scanned share their equal tag items (one `TagItem` entry per
/// type and value, as a loaded database does), and moves what they keep out of the scan's heap.
///
/// Why: every scanned file brings its own copy of its album, artist, album artist, genre…,
/// allocated among the decoders' buffers the scan frees; a tree that kept those strings
/// pinned the scan's pages, which no `malloc_trim` can give back. Each song kept is made
/// again here, after the scan, with fresh strings (one per distinct value) and its items
/// array at its exact size (a scan's grew by doubling). Strings of up to 15 bytes live
/// inside the `String` itself and need neither.
struct TagValuePool {
    private var values = Set<String>()
    private var items = Set<TagItem>()

    /// The song with its name and values copied, equal values shared.
    mutating func kept(_ song: LibrarySong) -> LibrarySong {
        var items: [TagItem] = []
        items.reserveCapacity(song.tag.items.count)
        for item in song.tag.items {
            items.append(shared(item))
        }
        return song.remade(tag: Tag(items: items, duration: song.tag.duration))
    }

    /// The one item of this type and value; a new one (with its string shared) the first time.
    private mutating func shared(_ item: TagItem) -> TagItem {
        if let existing = self.items.firstIndex(of: item) { return self.items[existing] }
        let made = TagItem(item.type, shared(item.value))
        self.items.insert(made)
        return made
    }

    private mutating func shared(_ value: String) -> String {
        guard value.utf8.count > 15 else { return value }
        if let existing = values.firstIndex(of: value) { return values[existing] }
        let copy = Self.copy(value)
        values.insert(copy)
        return copy
    }

    /// A string in storage of its own (an assignment would share the scan's).
    private static func copy(_ value: String) -> String {
        let count = value.utf8.count
        guard count > 15 else { return value }
        return String(unsafeUninitializedCapacity: count) { buffer in
            _ = buffer.initialize(fromContentsOf: value.utf8)
            return count
        }
    }
}
