import NimbusCore
import NimbusLibrary
import NimbusModel
import NimbusSupport

/// `jukeboxControl`: the phone as a remote for the box's own speakers. The jukebox is not a
/// player of its own but the MPD queue and player of one partition (`jukebox_partition`),
/// so DSub's jukebox mode, mpc, ncmpcpp and the web page see and change the same queue and
/// raise the same idle events. Every action runs on the core loop, in turn with the MPD port's.
///
/// `stop` pauses (DSub's stop-then-start resumes where it was); `gain` is the volume.
extension SubsonicService {
    enum JukeboxEndpoints {
        static func jukeboxControl(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply { try jukebox(call) }
    }

    private static func jukebox(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
        guard let partitionOf = call.backend.jukebox else { throw .unavailable("The jukebox is") }
        let action = try call.arguments.required("action")
        let can = call.user?.permissions ?? []
        // MPD's permission for the same change on its own port.
        let needed: Permission =
            switch action {
            case "get", "status": [.read]
            case "start", "stop", "skip", "setGain": [.player]
            case "add": [.add]
            case "set", "clear", "remove", "shuffle": [.control]
            default: throw .invalid("action")
            }
        guard can.isSuperset(of: needed) else { throw .notAuthorized }
        let library = call.library, database = call.database
        var songs: [Song] = []
        for id in call.arguments.all("id").prefix(10_000) {
            guard let entry = library.song(id), let song = database.song(at: entry.uri) else { throw .notFound("Song") }
            songs.append(song)
        }
        let index = try call.arguments.optionalInt("index", range: 0...Int.max)
        let offset = try call.arguments.int("offset", default: 0, range: 0...86400 * 7)
        var gain: Int?
        if action == "setGain" {
            guard let text = try call.arguments.optional("gain"), let value = Double(text), value.isFinite else { throw .missing("gain") }
            gain = Int((min(max(value, 0), 1) * 100).rounded())
        }
        let work = JukeboxWork(action: action, songs: songs, index: index, offset: offset, gain: gain)
        let outcome = call.blocking { @CoreActor () -> Result<JukeboxStatus, SubsonicError> in
            guard let partition = partitionOf() else { return .failure(SubsonicError(0, "The jukebox partition is gone")) }
            do throws(SubsonicError) {
                try work.apply(to: partition)
            } catch {
                return .failure(error)
            }
            return .success(JukeboxStatus(partition))
        }
        let status: JukeboxStatus
        switch outcome {
        case .success(let value): status = value
        case .failure(let error): throw error
        }
        var node = SubsonicNode(action == "get" ? "jukeboxPlaylist" : "jukeboxStatus")
        node.set("currentIndex", status.currentIndex)
        node.set("playing", status.playing)
        node.set("gain", status.gain)
        node.set("position", status.position)
        if action == "get" {
            node.add(list: "entry", status.uris.map { uri in library.song(SubsonicIDs.song(uri)).map { call.song($0, name: "entry") } ?? outside(uri) })
        }
        return .node(node)
    }

    /// A queued song that is not in the library (a radio URL): as much as a phone needs to list it.
    private static func outside(_ uri: String) -> SubsonicNode {
        var node = SubsonicNode("entry")
        node.set("id", SubsonicIDs.song(uri))
        node.set("isDir", false)
        node.set("title", uri)
        node.set("path", uri)
        return node
    }
}

/// One jukebox action, applied on the core loop.
struct JukeboxWork: Sendable {
    let action: String
    let songs: [Song]
    let index: Int?
    let offset: Int
    let gain: Int?

    @CoreActor
    func apply(to partition: Partition) throws(SubsonicError) {
        if action == "skip" || action == "remove" {
            guard let index, index < partition.queue.count else { throw .invalid("index") }
        }
        do throws(PlaybackError) {
            switch action {
            case "start": try partition.play(position: nil)
            case "stop": partition.pause(true)
            case "skip":
                try partition.play(position: index!)
                if offset > 0 { try partition.seek(position: index!, milliseconds: offset * 1000) }
            case "add": _ = try partition.add(songs)
            case "set":
                partition.clear()
                _ = try partition.add(songs)
            case "clear": partition.clear()
            case "remove": try partition.delete(index!..<(index! + 1))
            case "shuffle": try partition.shuffle(0..<partition.queue.count)
            case "setGain": try partition.outputs.setVolume(gain ?? 100)
            default: break
            }
        } catch {
            throw SubsonicError(error, while: "do that on the jukebox")
        }
    }
}

/// What `status` reports: the playing song's position in the queue (-1: none), whether it
/// plays, the volume as 0…1 and the seconds into the song.
struct JukeboxStatus: Sendable {
    let currentIndex: Int
    let playing: Bool
    let gain: Double
    let position: Int
    let uris: [String]

    @CoreActor
    init(_ partition: Partition) {
        currentIndex = partition.currentPosition ?? -1
        playing = partition.state == .play
        gain = Double(partition.outputs.volume ?? 100) / 100
        position = partition.state == .stop ? 0 : partition.elapsedMilliseconds / 1000
        uris = (0..<partition.queue.count).map { partition.queue[$0].song.uri }
    }
}
