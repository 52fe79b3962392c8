import NimbusAnalysis
import NimbusConfig
import NimbusCore
import NimbusDecoder
import NimbusLibrary
import NimbusModel
import NimbusServer
import NimbusSources
import NimbusSupport

/// Wires the loudness analysis pass into the daemon: its store beside the database, decoding
/// through the songs' own opening, the library's local songs queued after each load or update,
/// and measured gains offered to ReplayGain for songs without tags.
@CoreActor
enum AnalysisSetup {
    static func pass(_ configuration: DaemonConfiguration, songs: SongSources, idle: IdleBus, logger: Logger) -> AnalysisPass? {
        guard configuration.loudnessAnalysis else { return nil }
        let store = AnalysisStore(path: configuration.databaseFile + ".analysis") { logger.warning($0) }
        let pass = AnalysisPass(
            store: store, logger: logger,
            open: { uri in try songs.openDecoder(for: Song(uri: uri), replayGain: ReplayGainSettings(), mixRamp: false) },
            progress: { Task { @CoreActor in idle.emit(.analysis) } })
        let preferMeasured = configuration.replayGainSource == "analysis"
        songs.measuredReplayGain = { song, tagged in
            guard let measured = store.loudness(of: song.uri, modified: song.lastModified ?? 0) else { return tagged }
            let fromAnalysis = ReplayGainInfo(
                trackGain: Float(measured.track.gain), trackPeak: Float(measured.track.peak),
                albumGain: measured.album.map { Float($0.gain) }, albumPeak: measured.album.map { Float($0.peak) })
            let hasTags = tagged.trackGain != nil || tagged.albumGain != nil
            return hasTags && !preferMeasured ? tagged : fromAnalysis
        }
        return pass
    }

    /// `loudness_analysis "idle"`: holds the pass while the default partition plays or the
    /// library updates.
    static func watchBusy(_ pass: AnalysisPass?, configuration: DaemonConfiguration, partitions: PartitionSet, library: MusicLibrary, idle: IdleBus)
        -> BusyWatch?
    {
        guard let pass, configuration.analysisOnlyWhenIdle else { return nil }
        let watch = BusyWatch(pass: pass, partitions: partitions, library: library)
        idle.add(watch)
        watch.idleEventsOccurred([])
        return watch
    }

    /// After the database changed: forget removed songs, queue the local songs not measured
    /// as their files are now — worked out on the pass's thread, not the core loop's (it walks
    /// every song of the snapshot).
    static func libraryChanged(_ pass: AnalysisPass?, database: Database, songs: SongSources) {
        guard let pass else { return }
        pass.plan { [weak pass] in
            guard let pass else { return }
            let all = database.songs(below: "")
            pass.setLibrarySongs(all.count)
            pass.store.keep(only: Set(all.map(\.uri)))
            pass.submit(AnalysisJobs.albums(in: database, below: "", sources: songs, store: pass.store, mounted: false, everything: false))
        }
    }
}

/// Tells the pass whether the box is busy, on every player and update event.
@CoreActor
final class BusyWatch: IdleListener {
    private let pass: AnalysisPass
    private let partitions: PartitionSet
    private let library: MusicLibrary

    init(pass: AnalysisPass, partitions: PartitionSet, library: MusicLibrary) {
        self.pass = pass
        self.partitions = partitions
        self.library = library
    }

    var idlePartition: String { "default" }

    func idleEventsOccurred(_ events: IdleEvents) {
        pass.setBusy(partitions.all.contains { $0.state == .play } || library.updatingJobID != nil)
    }
}
