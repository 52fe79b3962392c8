import Foundation

/// Podcasts over the API: the box's subscriptions as channels, their episodes as songs of
/// the library (so `streamId` is the song's id, streamed and transcoded through the range
/// cache like any other), "download" as a pin on the box. A channel's id is `c` + MD5 of
/// its folder name (see SubsonicIDs).
extension SubsonicService {
    enum PodcastEndpoints {
        static func getPodcasts(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let podcasts = try call.podcasts()
            let wanted = try call.arguments.optional("id")
            let episodes = try call.arguments.bool("includeEpisodes", default: true)
            let statuses = podcasts.statuses()
            let channels = podcasts.channels().filter { wanted == nil || SubsonicIDs.podcast($0.name) == wanted }
            if let wanted, channels.isEmpty { throw .notFound("Podcast \(wanted)") }
            var node = SubsonicNode("podcasts")
            node.add(list: "channel", channels.map { call.channel($0, episodes: episodes, statuses: statuses) })
            return .node(node)
        }

        static func getNewestPodcasts(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let podcasts = try call.podcasts()
            let count = try call.arguments.count("count", default: 20)
            let statuses = podcasts.statuses()
            let all = podcasts.channels().flatMap { channel in channel.episodes.map { (channel, $0) } }
            let newest = all.sorted { ($0.1.published ?? 0, $0.1.uri) > ($1.1.published ?? 0, $1.1.uri) }.prefix(count)
            var node = SubsonicNode("newestPodcasts")
            node.add(list: "episode", newest.map { call.episode($0.1, of: $0.0, status: statuses[$0.1.uri]) })
            return .node(node)
        }

        static func getPodcastEpisode(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let podcasts = try call.podcasts()
            let (channel, episode) = try call.findEpisode(podcasts, try call.arguments.required("id"))
            return .node(call.episode(episode, of: channel, status: podcasts.statuses()[episode.uri], name: "podcastEpisode"))
        }

        static func createPodcastChannel(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let podcasts = try call.podcasts()
            let url = try call.arguments.required("url")
            guard url.hasPrefix("http://") || url.hasPrefix("https://"), url.utf8.count <= 4096 else { throw .invalid("url") }
            do {
                _ = try podcasts.subscribe(url)
            } catch {
                throw SubsonicError(error, while: "subscribe")
            }
            return .node(nil)
        }

        static func deletePodcastChannel(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let podcasts = try call.podcasts()
            let id = try call.arguments.required("id")
            guard let channel = podcasts.channels().first(where: { SubsonicIDs.podcast($0.name) == id }) else { throw .notFound("Podcast") }
            do {
                try podcasts.unsubscribe(channel.name)
            } catch {
                throw SubsonicError(error, while: "unsubscribe")
            }
            return .node(nil)
        }

        static func refreshPodcasts(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let podcasts = try call.podcasts()
            // Every feed is read: that takes a while, and the answer does not wait for it.
            call.service.streamers.submit { try? podcasts.refresh() }
            return .node(nil)
        }

        static func downloadPodcastEpisode(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let podcasts = try call.podcasts()
            let (_, episode) = try call.findEpisode(podcasts, try call.arguments.required("id"))
            call.blocking { await podcasts.keep([episode.uri], true) }
            return .node(nil)
        }

        static func deletePodcastEpisode(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let podcasts = try call.podcasts()
            let (_, episode) = try call.findEpisode(podcasts, try call.arguments.required("id"))
            call.blocking { await podcasts.keep([episode.uri], false) }
            return .node(nil)
        }
    }
}

extension SubsonicCall {
    func podcasts() throws(SubsonicError) -> SubsonicPodcasts {
        guard let podcasts = backend.podcasts else { throw .unavailable("Podcasts are") }
        return podcasts
    }

    /// An episode by its id (the song id of its URI).
    func findEpisode(_ podcasts: SubsonicPodcasts, _ id: String) throws(SubsonicError) -> (SubsonicPodcasts.Channel, SubsonicPodcasts.Episode) {
        for channel in podcasts.channels() {
            if let episode = channel.episodes.first(where: { SubsonicIDs.song($0.uri) == id }) { return (channel, episode) }
        }
        throw .notFound("Podcast episode")
    }

    func channel(_ channel: SubsonicPodcasts.Channel, episodes: Bool, statuses: [String: SubsonicPodcasts.Status]) -> SubsonicNode {
        var node = SubsonicNode("channel")
        node.set("id", SubsonicIDs.podcast(channel.name))
        node.set("url", channel.url)
        node.set("title", channel.title)
        node.set("description", channel.description)
        node.set("originalImageUrl", channel.image)
        node.set("status", channel.error == nil ? "completed" : "error")
        node.set("errorMessage", channel.error)
        if channel.image != nil, let first = channel.episodes.first, library.song(SubsonicIDs.song(first.uri)) != nil {
            node.set("coverArt", SubsonicIDs.song(first.uri))
        }
        if episodes { node.add(list: "episode", channel.episodes.map { episode($0, of: channel, status: statuses[$0.uri]) }) }
        return node
    }

    func episode(
        _ episode: SubsonicPodcasts.Episode, of channel: SubsonicPodcasts.Channel, status: SubsonicPodcasts.Status?, name: String = "episode"
    ) -> SubsonicNode {
        let id = SubsonicIDs.song(episode.uri)
        // Indexed: everything a song has (suffix, size, bit rate); not yet: what the feed says.
        var node = library.song(id).map { song($0, name: name) } ?? SubsonicNode(name)
        node.put("id", .string(id))
        node.put("streamId", .string(id))
        node.put("channelId", .string(SubsonicIDs.podcast(channel.name)))
        node.put("isDir", .bool(false))
        node.put("title", .string(episode.title))
        node.put("album", .string(channel.title))
        node.put("description", episode.description.map { .string(String($0.prefix(4000))) })
        if let published = episode.published { node.put("publishDate", .string(ItemNodes.date(published))) }
        if !node.has("duration"), let seconds = episode.seconds { node.set("duration", Int(seconds)) }
        if !node.has("size") { node.set("size", episode.size) }
        node.put("status", .string(status?.state ?? "new"))
        if let done = status?.done { node.set("downloadProgress", Int((done * 100).rounded(.down))) }
        return node
    }
}
