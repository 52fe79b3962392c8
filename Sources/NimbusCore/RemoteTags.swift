import NimbusDecoder
import NimbusModel
import NimbusPlayer
import NimbusSupport

/// MPD 0.24's RemoteTagCache: a URL queued by `add`, `addid` or `load` is scanned for its tags
/// and length in the background (through the range cache, so its head is also ready to
/// play), and every queue holding it is updated, which wakes `playlist` idlers, as MPD does.
/// Results are remembered, so queueing the same URL again costs nothing; a URL is scanned at
/// most once at a time, and at most two scans run at once.
@CoreActor
final class RemoteTags {
    private let songs: any SongOpening
    private let workers: BlockingWork
    private var known: [String: ScanResult] = [:]
    private var knownOrder: [String] = []
    private var scanning: Set<String> = []
    /// Told when a URL's tags arrive.
    var arrived: @CoreActor (String, ScanResult) -> Void = { _, _ in }

    /// Remembered scans beyond this are forgotten oldest first.
    static let capacity = 4096

    init(songs: any SongOpening, workers: BlockingWork) {
        self.songs = songs
        self.workers = workers
    }

    /// What is known of `uri`, else a scan is started and nil returned.
    func lookup(_ song: Song) -> ScanResult? {
        if let result = known[song.uri] { return result }
        guard !scanning.contains(song.uri) else { return nil }
        scanning.insert(song.uri)
        let songs = self.songs
        workers.submit {
            let result = songs.remoteTags(of: song)
            Task { @CoreActor in self.finished(song.uri, result) }
        }
        return nil
    }

    private func finished(_ uri: String, _ result: ScanResult?) {
        scanning.remove(uri)
        // Nothing learnt (a live stream, a server that failed): MPD calls that boring.
        guard let result, !result.tag.isEmpty else { return }
        known[uri] = result
        knownOrder.append(uri)
        if knownOrder.count > Self.capacity { known[knownOrder.removeFirst()] = nil }
        arrived(uri, result)
    }
}
