import Foundation
import NimbusCore

/// Internet radio: the streams of one stored playlist (`radio` unless `radio_playlist`
/// names another), so a station `save`d from mpc or the web page is on the phone, and one
/// added on the phone loads on the box. A station's name and home page ride as stickers of
/// its URL (`radioName`, `radioHomepage`); its id is `i` + MD5 of the URL.
extension SubsonicService {
    enum RadioEndpoints {
        static func getInternetRadioStations(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let urls = try call.radioURLs()
            let stickers = call.backend.stickers
            let notes = call.blocking { await stickers.read("song", ["radioName", "radioHomepage"]) }
            var node = SubsonicNode("internetRadioStations")
            node.add(
                list: "internetRadioStation",
                urls.map { url in
                    var station = SubsonicNode("internetRadioStation")
                    station.set("id", SubsonicIDs.radio(url))
                    station.set("name", notes[url]?["radioName"] ?? URL(string: url)?.host ?? url)
                    station.set("streamUrl", url)
                    station.set("homePageUrl", notes[url]?["radioHomepage"])
                    return station
                })
            return .node(node)
        }

        static func createInternetRadioStation(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let url = try call.streamURL()
            let store = try call.playlists(), name = call.backend.radioPlaylist
            let existing = (try? store.load(name)) ?? []
            guard !existing.contains(url) else { throw SubsonicError(0, "That station is there already") }
            try call.edit { [store, name, url] () throws(PlaylistStore.Failure) in
                if store.exists(name) { try store.add(name, entries: [url]) } else { try store.create(name, entries: [url]) }
            }
            return try call.noteStation(url)
        }

        static func updateInternetRadioStation(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let old = try call.station(try call.arguments.required("id"))
            let url = try call.streamURL()
            if url != old {
                let store = try call.playlists(), name = call.backend.radioPlaylist
                try call.edit { [store, name, url, old] () throws(PlaylistStore.Failure) in
                    let entries = try store.load(name).map { $0 == old ? url : $0 }
                    try store.save(name, entries: entries, mode: .replace)
                }
                _ = try? call.change([
                    .delete(type: "song", uri: old, name: "radioName"), .delete(type: "song", uri: old, name: "radioHomepage"),
                ])
            }
            return try call.noteStation(url)
        }

        static func deleteInternetRadioStation(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            let url = try call.station(try call.arguments.required("id"))
            let store = try call.playlists(), name = call.backend.radioPlaylist
            try call.edit { [store, name, url] () throws(PlaylistStore.Failure) in
                try store.save(name, entries: try store.load(name).filter { $0 != url }, mode: .replace)
            }
            return try call.change([.delete(type: "song", uri: url, name: "radioName"), .delete(type: "song", uri: url, name: "radioHomepage")])
        }
    }
}

extension SubsonicCall {
    /// The streams of the radio playlist (its library songs are not stations).
    func radioURLs() throws(SubsonicError) -> [String] {
        let store = try playlists()
        guard store.exists(backend.radioPlaylist) else { return [] }
        do {
            return try store.load(backend.radioPlaylist).filter { $0.contains("://") }
        } catch {
            throw SubsonicError(error, while: "read the radio playlist")
        }
    }

    func station(_ id: String) throws(SubsonicError) -> String {
        guard let url = try radioURLs().first(where: { SubsonicIDs.radio($0) == id }) else { throw .notFound("Radio station") }
        return url
    }

    func streamURL() throws(SubsonicError) -> String {
        let url = try arguments.required("streamUrl")
        guard url.hasPrefix("http://") || url.hasPrefix("https://"), url.utf8.count <= 4096, !url.contains(where: \.isNewline) else {
            throw .invalid("streamUrl")
        }
        return url
    }

    /// Keeps the station's name and home page.
    func noteStation(_ url: String) throws(SubsonicError) -> SubsonicReply {
        var changes: [StickerChange] = []
        for (argument, sticker) in [("name", "radioName"), ("homepageUrl", "radioHomepage")] {
            if let value = try arguments.optional(argument), !value.isEmpty {
                changes.append(.set(type: "song", uri: url, name: sticker, value: String(value.prefix(1000))))
            } else {
                changes.append(.delete(type: "song", uri: url, name: sticker))
            }
        }
        return try change(changes)
    }
}
