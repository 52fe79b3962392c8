import Foundation
import NimbusOffline
import NimbusServer
import NimbusStorage
import NimbusSubsonic
import NimbusSupport

/// The phone API's view of the podcast subscriptions: the shows `podcastsubscribe` keeps,
/// episodes as the songs mounted at `podcasts/`, and "download on the box" as a pin (the
/// offline downloads fetch it; `listpins` and the Downloads page show it like any other).
enum SubsonicPodcastSetup {
    static func podcasts(
        _ manager: PodcastManager, offline: OfflineDownloads, mounted: MountedStorage, context: ServerContext, work: BlockingWork
    )
        -> SubsonicPodcasts
    {
        let mount = PodcastManager.mountName
        return SubsonicPodcasts(
            channels: {
                manager.shows.shows.map { show in
                    SubsonicPodcasts.Channel(
                        name: show.name, url: show.url, title: show.title, author: show.author, description: nil, image: show.image,
                        error: show.error,
                        episodes: show.episodes.map { episode in
                            SubsonicPodcasts.Episode(
                                uri: "\(mount)/\(show.name)/\(episode.file)", title: episode.title, description: episode.description,
                                published: episode.published, seconds: episode.duration, size: episode.length)
                        })
                }
            },
            subscribe: { url in try manager.subscribe(url) },
            unsubscribe: { name in try manager.unsubscribe(name) },
            refresh: { try manager.refresh(nil) },
            keep: { @CoreActor uris, keep in
                var changed = false
                for uri in uris {
                    if keep {
                        changed = offline.add(Pin(kind: .song, name: uri)) || changed
                    } else {
                        changed = (try? offline.remove(Pin.ID(playlist: false, name: uri))) != nil || changed
                        // Finding the file's cache entry may ask the server: not on the core loop.
                        work.submit { mounted.offlineFile(uri)?.discard() }
                    }
                }
                if changed {
                    context.syncPins()
                    context.idle.emit(.offline)
                }
            },
            statuses: {
                var result: [String: SubsonicPodcasts.Status] = [:]
                for song in (try? offline.songReports(nil)) ?? [] where song.uri.hasPrefix(mount + "/") {
                    switch song.state {
                    case .completed: result[song.uri] = SubsonicPodcasts.Status(state: "completed")
                    case .failed: result[song.uri] = SubsonicPodcasts.Status(state: "error")
                    default:
                        let done = song.bytes > 0 ? Double(song.done) / Double(song.bytes) : 0
                        result[song.uri] = SubsonicPodcasts.Status(state: "downloading", done: done)
                    }
                }
                return result
            })
    }
}
