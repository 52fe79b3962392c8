import NimbusCore
import NimbusModel
import NimbusQueue
import XCTest

/// The state file codec: MPD's format, both ways.
final class StateFileCodecTests: XCTestCase {
    func testRoundTrip() {
        var state = SavedState()
        state.volume = 42
        state.outputs = [("Speakers", true), ("Kitchen", false)]
        state.state = .pause
        state.current = 1
        state.elapsedMilliseconds = 61_250
        state.random = true
        state.options.repeatMode = true
        state.options.single = .oneshot
        state.options.crossfade = 3
        state.options.mixRampDB = -17.5
        state.options.mixRampDelay = 2
        state.options.replayGainMode = "album"
        var remote = Song(uri: "http://radio.example/stream.ogg")
        remote.tag.items = [TagItem(.title, "Live: now")]
        state.entries = [
            SavedState.Entry(song: Song(uri: "Artist/Album/01.flac")),
            SavedState.Entry(song: Song(uri: "Artist/Album/02.flac"), priority: 9, range: SongRange(start: 1500, end: 90_000)),
            SavedState.Entry(song: remote, isDetached: true),
        ]
        let text = StateFileCodec.encode(state)
        XCTAssertTrue(text.contains("time: 61.250000\n"), text)
        XCTAssertTrue(text.contains("audio_device_state:0:Kitchen\n"), text)
        XCTAssertTrue(text.contains("0:Artist/Album/01.flac\n"), text)
        XCTAssertTrue(text.contains("Prio: 9\nsong_begin: Artist/Album/02.flac\nRange: 1.500-90.000\nsong_end\n"), text)
        let decoded = StateFileCodec.decode(text)
        XCTAssertEqual(decoded.entries[1].range, SongRange(start: 1500, end: 90_000))
        XCTAssertFalse(decoded.entries[1].isDetached, "a ranged library song is still a library song")
        XCTAssertEqual(decoded, state)
    }

    func testReadsAStateFileAsMPDWritesIt() {
        let text = """
            sw_volume: 73
            audio_device_state:1:My ALSA Device
            state: play
            current: 2
            time: 12.500000
            random: 0
            repeat: 1
            single: 0
            consume: 0
            crossfade: 0
            mixrampdb: 0.000000
            mixrampdelay: -1.000000
            playlist_begin
            0:a.mp3
            Prio: 3
            1:b.mp3
            song_begin: http://x/y.mp3
            Title: Stream
            Time: 180.000000
            song_end
            playlist_end

            """
        let state = StateFileCodec.decode(text)
        XCTAssertEqual(state.volume, 73)
        XCTAssertEqual(state.outputs.map(\.name), ["My ALSA Device"])
        XCTAssertEqual(state.state, .play)
        XCTAssertEqual(state.current, 2)
        XCTAssertEqual(state.elapsedMilliseconds, 12_500)
        XCTAssertTrue(state.options.repeatMode)
        XCTAssertNil(state.options.mixRampDelay)
        XCTAssertEqual(state.entries.map(\.song.uri), ["a.mp3", "b.mp3", "http://x/y.mp3"])
        XCTAssertEqual(state.entries.map(\.priority), [0, 3, 0])
        XCTAssertEqual(state.entries[2].song.tag.first(.title), "Stream")
        XCTAssertEqual(state.entries[2].song.tag.duration, 180_000)
    }

    func testGarbageDecodesToNothingRatherThanFailing() {
        let state = StateFileCodec.decode("\u{0}\u{ff}state: maybe\ncurrent: -5\ntime: nan\nplaylist_begin\nxyz\n")
        XCTAssertEqual(state.state, .stop)
        XCTAssertNil(state.current)
        XCTAssertEqual(state.elapsedMilliseconds, 0)
        XCTAssertTrue(state.entries.isEmpty)
    }
}
