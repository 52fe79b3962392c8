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

    /// After the database changed: forget removed songs, queue the local songs not measured
    /// as their files are now.
    static func libraryChanged(_ pass: AnalysisPass?, database: Database, songs: SongSources) {
        guard let pass else { return }
        let all = database.songs(below: "")
        pass.setLibrarySongs(all.count)
        pass.store.keep(only: Set(all.map(\.uri)))
        pass.submit(AnalysisJobs.albums(in: database, below: "", sources: songs, store: pass.store, mounted: false, everything: false))
    }
}
