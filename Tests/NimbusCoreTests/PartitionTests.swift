import Foundation
@testable import NimbusCore
import NimbusDecoder
import NimbusHarness
import NimbusModel
import NimbusOutput
import NimbusPlayer
import NimbusSupport
import Synchronization
import XCTest

/// A partition driven directly: queue edits, playback through a real player with an unpaced
/// null output, followers named and prefetched, a song that cannot be opened.
final class PartitionTests: XCTestCase {
    /// Songs of `frames` frames of silence; URIs containing "broken" cannot be opened.
    final class FakeSongs: SongOpening {
        let opened = Mutex<[String]>([])
        let prefetched = Mutex<[String]>([])
        let frames: Int64
        init(frames: Int64) { self.frames = frames }

        /// URIs containing "empty" decode no frame at all; "tiny" ones less than a chunk.
        func openDecoder(for song: Song, replayGain: ReplayGainSettings, mixRamp: Bool) throws -> any AudioDecoder {
            opened.withLock { $0.append(song.uri) }
            guard !song.uri.contains("broken") else { throw DecoderError("cannot open \(song.uri)") }
            if song.uri.contains("empty") { return Silence(frames: 0) }
            if song.uri.contains("tiny") { return Silence(frames: 300) }
            return Silence(frames: frames)
        }

        func prefetch(_ song: Song) { prefetched.withLock { $0.append(song.uri) } }
        func sourceChanged(_ song: Song) -> Bool { false }
    }

    final class Silence: AudioDecoder {
        let format = AudioFormat(sampleRate: 44100, sample: .s16, channels: 2)
        let totalFrames: Int64?
        var bitRate: Int { 0 }
        private var left: Int64
        init(frames: Int64) {
            totalFrames = frames
            left = frames
        }
        func decode(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
            let count = Int(min(left, Int64(buffer.count / format.frameBytes)))
            buffer.baseAddress!.initializeMemory(as: UInt8.self, repeating: 0, count: count * format.frameBytes)
            left -= Int64(count)
            return count
        }
        func seek(toFrame frame: Int64) throws(DecoderError) { left = max(0, (totalFrames ?? 0) - frame) }
    }

    private func makeSet(_ songs: FakeSongs, maxQueueLength: Int = 16384) throws -> PartitionSet {
        try onCore {
            let set = PartitionSet(idle: IdleBus(reactor: CoreActor.loop.reactor), songs: songs, maxQueueLength: maxQueueLength)
            set.defaultPartition.outputs.install([
                OutputRecord(
                    id: 0, configuration: OutputConfiguration(name: "fast", type: "null"),
                    definition: try NullOutputPlugin().configure(
                        OutputConfiguration(name: "fast", type: "null", settings: ["sync": "no"])),
                    explicitMixer: false)
            ])
            return set
        }
    }

    private func songs(_ names: String...) -> [Song] { names.map { Song(uri: $0, tag: Tag(duration: 100)) } }

    func testTheQueueRefusesMoreThanItsLimit() throws {
        let set = try makeSet(FakeSongs(frames: 100), maxQueueLength: 2)
        let songs = songs("a.flac", "b.flac", "c.flac")
        let outcome = try onCore { () -> String in
            let partition = set.defaultPartition
            _ = try partition.add(Array(songs.prefix(2)))
            do {
                _ = try partition.add([songs[2]])
                return "accepted"
            } catch {
                return "\(error) \(partition.queue.count)"
            }
        }
        XCTAssertEqual(outcome, "queueFull(2) 2")
    }

    func testPlaybackRunsThroughTheQueueNamingAndPrefetchingEachFollower() throws {
        let fake = FakeSongs(frames: 4410)
        let set = try makeSet(fake)
        let queue = songs("a.flac", "b.flac", "c.flac")
        try onCore {
            _ = try set.defaultPartition.add(queue)
            try set.defaultPartition.play(position: 0)
        }
        XCTAssertTrue(waitUntil { (try? onCore { set.defaultPartition.state == .stop }) == true }, "the queue never ended")
        XCTAssertEqual(fake.opened.withLock { $0 }, ["a.flac", "b.flac", "c.flac"])
        XCTAssertEqual(fake.prefetched.withLock { $0 }, ["b.flac", "c.flac"], "each follower is fetched ahead")
        XCTAssertNil(try onCore { set.defaultPartition.currentPosition })
        try onCore { set.shutdown() }
    }

    func testASongThatCannotBeOpenedIsReportedAndSkipped() throws {
        let fake = FakeSongs(frames: 4410)
        let set = try makeSet(fake)
        let queue = songs("broken.flac", "b.flac")
        try onCore {
            _ = try set.defaultPartition.add(queue)
            try set.defaultPartition.play(position: 0)
        }
        XCTAssertTrue(waitUntil { (try? onCore { set.defaultPartition.state == .stop }) == true })
        XCTAssertEqual(fake.opened.withLock { $0 }, ["broken.flac", "b.flac"], "playback went on after the failure")
        XCTAssertEqual(try onCore { set.defaultPartition.error }, "Failed to decode broken.flac: cannot open broken.flac")
        try onCore { set.shutdown() }
    }

    /// Songs with no audio, or less than a chunk of it, between others: the queue goes on.
    func testSongsWithoutAudioDoNotStallTheQueue() throws {
        let fake = FakeSongs(frames: 4410)
        let set = try makeSet(fake)
        let queue = songs("a.flac", "empty.flac", "tiny.flac", "empty2.flac", "b.flac", "empty3.flac")
        try onCore {
            _ = try set.defaultPartition.add(queue)
            try set.defaultPartition.play(position: 0)
        }
        XCTAssertTrue(waitUntil { (try? onCore { set.defaultPartition.state == .stop }) == true }, "the queue never ended")
        XCTAssertEqual(fake.opened.withLock { $0 }, queue.map(\.uri))
        try onCore { set.shutdown() }
    }

    /// `pause 0` wakes the output only after the loop turn's idle answers; a `pause 1` later in
    /// the same turn (one command list) must leave the player paused all the same.
    func testResumeWakesThePlayerAfterTheTurnAndAPauseInTheSameTurnHolds() throws {
        let set = try makeSet(FakeSongs(frames: 44100 * 3600))
        let queue = songs("long.flac")
        try onCore {
            _ = try set.defaultPartition.add(queue)
            try set.defaultPartition.play(position: 0)
            set.defaultPartition.pause(true)
        }
        try onCore {
            set.defaultPartition.pause(false)
            set.defaultPartition.pause(true)
        }
        _ = try onCore { () -> Int in 0 }  // a later turn: the first one's hooks have run
        XCTAssertEqual(try onCore { set.defaultPartition.engine.status.state }, .pause, "resumed behind a later pause")
        try onCore { set.defaultPartition.pause(false) }
        XCTAssertTrue(waitUntil { (try? onCore { set.defaultPartition.engine.status.state == .play }) == true }, "never resumed")
        XCTAssertEqual(try onCore { set.defaultPartition.state }, .play)
        try onCore { set.shutdown() }
    }

    func testPartitionsAreCreatedFoundAndRemovedButNotTheDefault() throws {
        let set = try makeSet(FakeSongs(frames: 1))
        let names = try onCore { () -> [String] in
            set.add(named: "kitchen")
            XCTAssertNotNil(set.named("kitchen"))
            set.remove(set.defaultPartition)
            set.remove(set.named("kitchen")!)
            return set.all.map(\.name)
        }
        XCTAssertEqual(names, ["default"])
    }
}
