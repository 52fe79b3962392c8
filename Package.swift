// swift-tools-version:6.2
// The dependency graph below is the architecture: each target imports exactly what it lists
// (ArchitectureTests checks it). Plugin families have a registry each: decoders in
// NimbusDecoder/Plugins, outputs in NimbusOutput/Plugins, cloud providers in
// NimbusStorage/Cloud/Providers; the assembly (NimbusDaemon) hands them to the services.
import PackageDescription

// Release builds leave out the run-time exclusivity checks (every access to a class property
// or global registered and looked up at run time: 5% of the core thread's time per command,
// measured with perf) and the dynamic actor-isolation checks Swift 6 puts into isolated
// closures handed to non-isolated code (`withUnsafeBytes` in the send path, the library walk
// of `add ""`: about 1 µs per `ping`, a tenth of `add ""`; every module here is in Swift 6
// mode, so the compiler already proved what they check). The compile-time checks stay, and
// debug builds and tests keep them all.
let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error), .unsafeFlags(["-enforce-exclusivity=unchecked", "-Xfrontend", "-disable-dynamic-actor-isolation"], .when(configuration: .release)),
]

func cLibrary(_ name: String, _ pkgConfig: String, _ apt: [String]) -> Target {
    .systemLibrary(name: name, path: "Sources/\(name)", pkgConfig: pkgConfig, providers: [.apt(apt)])
}

let package = Package(
    name: "Nimbus",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "nimbusd", targets: ["nimbusd"]),
        .executable(name: "nimbus", targets: ["nimbus"]),
    ],
    targets: [
        // C libraries from Debian, each behind a shim for variadic calls and macros.
        cLibrary("CCurl", "libcurl", ["libcurl4-openssl-dev"]),
        cLibrary("CMpg123", "libmpg123", ["libmpg123-dev"]),
        cLibrary("CVorbis", "vorbisfile", ["libvorbis-dev"]),
        cLibrary("CFLAC", "flac", ["libflac-dev"]),
        cLibrary("CALSA", "alsa", ["libasound2-dev"]),
        cLibrary("CSQLite", "sqlite3", ["libsqlite3-dev"]),
        cLibrary("CChromaprint", "libchromaprint", ["libchromaprint-dev"]),
        cLibrary("COpusFile", "opusfile", ["libopusfile-dev"]),
        cLibrary("CFFmpeg", "libavformat", ["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"]),
        cLibrary("COpus", "opus", ["libopus-dev"]),
        cLibrary("CExpat", "expat", ["libexpat1-dev"]),
        cLibrary("CWebSockets", "libwebsockets", ["libwebsockets-dev"]),
        cLibrary("CZlib", "zlib", ["zlib1g-dev"]),
        cLibrary("CSMBClient", "smbclient", ["libsmbclient-dev"]),
        cLibrary("CNFS", "libnfs", ["libnfs-dev"]),
        cLibrary("CSoxr", "soxr", ["libsoxr-dev"]),
        cLibrary("CCue", "libcue", ["libcue-dev"]),
        cLibrary("CEBUR128", "libebur128", ["libebur128-dev"]),
        // libpulse's pkg-config file adds -pthread, which SwiftPM refuses with a warning.
        .systemLibrary(name: "CPulse", path: "Sources/CPulse", providers: [.apt(["libpulse-dev"])]),
        // libmpcdec ships no pkg-config file.
        .systemLibrary(name: "CMpcDec", path: "Sources/CMpcDec", providers: [.apt(["libmpcdec-dev"])]),
        // LAME ships no pkg-config file; its header is in /usr/include/lame.
        .systemLibrary(name: "CLame", path: "Sources/CLame", providers: [.apt(["libmp3lame-dev"])]),

        // Kernel interfaces missing from Swift's Glibc module (epoll, eventfd).
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),

        // Threads, the event loop and its global actor, logging, files.
        .target(name: "NimbusSupport", dependencies: ["CLinux"], swiftSettings: strict),
        // Value types shared by every layer.
        .target(name: "NimbusModel", dependencies: [], swiftSettings: strict),
        // MPD wire format: tokenizer, argument parsing, ACK codes, response writer.
        .target(name: "NimbusProtocol", dependencies: ["NimbusModel"], swiftSettings: strict),
        // XML from the network (WebDAV listings, XSPF playlists, feeds) through expat, bounded.
        .target(name: "NimbusXML", dependencies: ["NimbusSupport", "CExpat"], swiftSettings: strict),
        // Byte sources: InputStream, local files, libcurl sessions and the crash-safe range cache.
        .target(name: "NimbusInput", dependencies: ["NimbusSupport", "CCurl"], swiftSettings: strict),
        // Where music lives: the local directory, cloud accounts and network shares (SMB through
        // libsmbclient, NFS through libnfs, SFTP and FTP through libcurl): one provider plugin each.
        .target(
            name: "NimbusStorage",
            dependencies: ["NimbusInput", "NimbusXML", "NimbusModel", "NimbusConfig", "NimbusSupport", "CSMBClient", "CNFS"],
            swiftSettings: strict),
        // Podcasts: feeds (RSS, Atom) read into shows and episodes, the subscriptions kept and refreshed, and
        // the storage that mounts them at `podcasts/` (episodes through the range cache).
        .target(
            name: "NimbusPodcasts", dependencies: ["NimbusXML", "NimbusStorage", "NimbusInput", "NimbusModel", "NimbusSupport"],
            swiftSettings: strict),
        // Offline pins: songs kept whole in the range cache by download threads, one state machine each.
        .target(name: "NimbusOffline", dependencies: ["NimbusStorage", "NimbusInput", "NimbusSupport"], swiftSettings: strict),
        // Audio formats: tag scanning and decoding (libmpg123, libvorbisfile, libFLAC, libopusfile, FFmpeg, WAV),
        // one plugin each.
        .target(
            name: "NimbusDecoder",
            dependencies: ["NimbusInput", "NimbusPCM", "NimbusModel", "NimbusSupport", "CMpg123", "CVorbis", "CFLAC", "COpusFile", "CFFmpeg", "CMpcDec"],
            swiftSettings: strict),
        // Covers made small for the web page: any picture FFmpeg decodes, scaled and re-encoded as JPEG,
        // with a byte-bounded memory of the results.
        .target(name: "NimbusArtwork", dependencies: ["CFFmpeg"], swiftSettings: strict),
        // The song database: tree, updater, persistence, filter evaluation and queries.
        .target(
            name: "NimbusLibrary", dependencies: ["NimbusStorage", "NimbusDecoder", "NimbusCue", "NimbusModel", "NimbusSupport", "CLinux"],
            swiftSettings: strict),
        // CUE sheets (libcue) as MPD's CUE playlist plugin reads them: tracks, ranges, tags.
        .target(name: "NimbusCue", dependencies: ["NimbusModel", "CCue"], swiftSettings: strict),
        // PCM as MPD's src/pcm and src/filter: sample conversion, dither, rate conversion (libsoxr or
        // libswresample behind one protocol), the Filter protocol and the per-output FilterChain whose
        // stages are ReplayGain, volume, the equalizer, balance, crossfeed, routing and format.
        .target(name: "NimbusPCM", dependencies: ["NimbusModel", "NimbusSupport", "CSoxr", "CFFmpeg"], swiftSettings: strict),
        // Encoders as MPD's src/encoder: WAV, FLAC, Vorbis, Opus, LAME and AAC behind one registry,
        // used by the httpd output and by transcoding.
        .target(
            name: "NimbusEncoder", dependencies: ["NimbusModel", "NimbusSupport", "CFLAC", "CVorbis", "COpus", "CLame", "CFFmpeg"],
            swiftSettings: strict),
        // Sound sinks (ALSA, null, fifo, the httpd stream: one plugin each) and the output thread
        // that runs each through its FilterChain.
        .target(
            name: "NimbusOutput", dependencies: ["NimbusPCM", "NimbusEncoder", "NimbusModel", "NimbusSupport", "CALSA", "CPulse"],
            swiftSettings: strict),
        // Playback: decoder thread (command mailbox, crossfade mixer), PCM pipe, one thread per output;
        // the follower handshake that makes joins gapless.
        .target(
            name: "NimbusPlayer", dependencies: ["NimbusDecoder", "NimbusInput", "NimbusOutput", "NimbusPCM", "NimbusModel", "NimbusSupport"],
            swiftSettings: strict),
        // The queue and its play order: pure values.
        .target(name: "NimbusQueue", dependencies: ["NimbusModel"], swiftSettings: strict),
        // Stickers in SQLite with MPD's schema.
        .target(name: "NimbusStickers", dependencies: ["NimbusSupport", "CSQLite"], swiftSettings: strict),
        // The service announced on the LAN by multicast DNS (`_mpd._tcp`), as MPD does via Avahi.
        .target(name: "NimbusZeroconf", dependencies: ["NimbusSupport"], swiftSettings: strict),
        // mpd.conf-compatible configuration parsing.
        .target(name: "NimbusConfig", dependencies: ["NimbusModel", "NimbusSupport"], swiftSettings: strict),
        // Server state that is not protocol: partitions (queue, player, outputs, volume), stored
        // playlists, the state file, the idle bus, client-to-client channels.
        .target(
            name: "NimbusCore",
            dependencies: ["NimbusQueue", "NimbusPlayer", "NimbusOutput", "NimbusPCM", "NimbusDecoder", "NimbusModel", "NimbusSupport"],
            swiftSettings: strict),
        // Where songs come from: opening for the player (storage, input, decoder, ReplayGain),
        // songs outside the library, artwork, raw metadata and fingerprints for the server.
        .target(
            name: "NimbusSources",
            dependencies: [
                "NimbusPlayer", "NimbusStorage", "NimbusDecoder", "NimbusCue", "NimbusInput", "NimbusXML", "NimbusPCM", "NimbusModel", "NimbusSupport",
                "CChromaprint",
            ],
            swiftSettings: strict),
        // The web page: HTTP and WebSocket through libwebsockets on a thread of its own, the
        // page's files built into the binary, each WebSocket bridged to an MPD session.
        .target(
            name: "NimbusWeb", dependencies: ["NimbusSupport", "CWebSockets", "CZlib", "CLinux"], resources: [.embedInCode("Assets")],
            swiftSettings: strict),
        // Songs made smaller for phones: decoder → conversion → Opus, MP3 or AAC, the decision
        // of what to make, and finished transcodes kept in the range cache.
        .target(
            name: "NimbusTranscode",
            dependencies: ["NimbusDecoder", "NimbusEncoder", "NimbusPCM", "NimbusInput", "NimbusModel", "NimbusSupport"],
            swiftSettings: strict),
        // The Subsonic / OpenSubsonic API for phone apps, over the web page's HTTP server.
        .target(
            name: "NimbusSubsonic",
            dependencies: [
                "NimbusWeb", "NimbusCore", "NimbusLibrary", "NimbusInput", "NimbusTranscode", "NimbusDecoder", "NimbusModel",
                "NimbusSupport",
            ],
            swiftSettings: strict),
        // Listeners, client sessions, the command table and its handlers.
        // The analysis pass: every song decoded once in the background and measured (EBU R128
        // loudness through libebur128), the measurements kept beside the database.
        .target(
            name: "NimbusAnalysis", dependencies: ["NimbusDecoder", "NimbusPCM", "NimbusModel", "NimbusSupport", "CEBUR128"],
            swiftSettings: strict),
        .target(
            name: "NimbusServer",
            dependencies: [
                "NimbusCore", "NimbusSources", "NimbusQueue", "NimbusLibrary", "NimbusStickers", "NimbusAnalysis",
                "NimbusStorage", "NimbusOffline", "NimbusOutput", "NimbusPCM", "NimbusProtocol", "NimbusModel", "NimbusSupport", "CLinux",
            ],
            swiftSettings: strict),
        // The composition root as a library: builds a daemon from its configuration, for the
        // executable and for the in-process test server alike.
        .target(
            name: "NimbusDaemon",
            dependencies: [
                "NimbusServer", "NimbusSources", "NimbusCore", "NimbusLibrary", "NimbusDecoder", "NimbusStorage", "NimbusOffline",
                "NimbusConfig", "NimbusOutput", "NimbusPCM", "NimbusInput", "NimbusProtocol", "NimbusStickers", "NimbusZeroconf", "NimbusWeb",
                "NimbusArtwork", "NimbusPodcasts", "NimbusSubsonic", "NimbusTranscode", "NimbusEncoder", "NimbusAnalysis",
                "NimbusModel", "NimbusSupport",
            ],
            swiftSettings: strict),
        // The executable: command line, config file, signals.
        .executableTarget(
            name: "nimbusd", dependencies: ["NimbusDaemon", "NimbusCLI", "NimbusConfig", "NimbusProtocol", "NimbusSupport"],
            swiftSettings: strict),
        // The companion command line for what MPD clients cannot do: signing in to cloud accounts.
        // The companion command line as a library, so `nimbusd` can also serve as `nimbus` (one
        // binary in the package: Foundation and its ICU data once).
        .target(name: "NimbusCLI", dependencies: ["NimbusStorage", "NimbusConfig", "NimbusXML", "NimbusSupport"], swiftSettings: strict),
        .executableTarget(name: "nimbus", dependencies: ["NimbusCLI"], swiftSettings: strict),

        // Real daemons and servers as child processes, line clients, fixtures: shared by the
        // test suite and `make bench`.
        .target(name: "NimbusHarness", dependencies: ["NimbusSupport"], swiftSettings: strict),
        // `make bench`: nimbusd and Debian's MPD side by side, ratios ours/MPD.
        .executableTarget(name: "nimbus-bench", dependencies: ["NimbusHarness", "NimbusPCM", "NimbusModel", "NimbusSupport", "CLinux"], swiftSettings: strict),

        .testTarget(name: "NimbusSupportTests", dependencies: ["NimbusSupport", "NimbusHarness"], swiftSettings: strict),
        .testTarget(
            name: "NimbusProtocolTests", dependencies: ["NimbusProtocol", "NimbusModel"], swiftSettings: strict),
        .testTarget(name: "NimbusConfigTests", dependencies: ["NimbusConfig", "NimbusModel", "NimbusSupport", "NimbusHarness"], swiftSettings: strict),
        .testTarget(
            name: "NimbusCoreTests",
            dependencies: [
                "NimbusCore", "NimbusQueue", "NimbusPlayer", "NimbusDecoder", "NimbusOutput", "NimbusModel", "NimbusSupport",
                "NimbusHarness",
            ],
            swiftSettings: strict),
        .testTarget(name: "NimbusModelTests", dependencies: ["NimbusModel"], swiftSettings: strict),
        .testTarget(name: "NimbusXMLTests", dependencies: ["NimbusXML"], swiftSettings: strict),
        .testTarget(name: "NimbusSourcesTests", dependencies: ["NimbusSources", "NimbusLibrary", "NimbusCue", "NimbusModel"], swiftSettings: strict),
        .testTarget(name: "NimbusAnalysisTests", dependencies: ["NimbusAnalysis", "NimbusHarness"], swiftSettings: strict),
        .testTarget(name: "NimbusPCMTests", dependencies: ["NimbusPCM", "NimbusModel"], swiftSettings: strict),
        .testTarget(name: "NimbusEncoderTests", dependencies: ["NimbusEncoder", "NimbusModel"], swiftSettings: strict),
        .testTarget(
            name: "NimbusStickersTests", dependencies: ["NimbusStickers", "CSQLite", "NimbusHarness"], swiftSettings: strict),
        .testTarget(name: "NimbusZeroconfTests", dependencies: ["NimbusZeroconf"], swiftSettings: strict),
        .testTarget(name: "NimbusWebTests", dependencies: ["NimbusWeb"], swiftSettings: strict),
        .testTarget(
            name: "NimbusSubsonicTests",
            dependencies: [
                "NimbusSubsonic", "NimbusTranscode", "NimbusCore", "NimbusLibrary", "NimbusWeb", "NimbusModel", "NimbusSupport", "NimbusHarness",
            ],
            exclude: ["Golden"], swiftSettings: strict),
        .testTarget(name: "NimbusArtworkTests", dependencies: ["NimbusArtwork", "NimbusHarness"], swiftSettings: strict),
        .testTarget(name: "NimbusPodcastsTests", dependencies: ["NimbusPodcasts"], swiftSettings: strict),
        .testTarget(name: "NimbusQueueTests", dependencies: ["NimbusQueue", "NimbusModel"], swiftSettings: strict),
        .testTarget(
            name: "NimbusInputTests", dependencies: ["NimbusInput", "NimbusSupport", "NimbusHarness"], swiftSettings: strict),
        .testTarget(
            name: "NimbusStorageTests",
            dependencies: ["NimbusStorage", "NimbusConfig", "NimbusInput", "NimbusDecoder", "NimbusSupport", "NimbusHarness"],
            swiftSettings: strict),
        .testTarget(
            name: "NimbusOfflineTests", dependencies: ["NimbusOffline", "NimbusStorage", "NimbusInput", "NimbusSupport", "NimbusHarness"],
            swiftSettings: strict),
        .testTarget(
            name: "NimbusServerTests",
            dependencies: [
                "NimbusServer", "NimbusDaemon", "NimbusConfig", "NimbusModel", "NimbusSupport", "NimbusHarness",
            ],
            exclude: ["Transcripts"],
            swiftSettings: strict),
        .testTarget(
            name: "NimbusDecoderTests", dependencies: ["NimbusDecoder", "NimbusInput", "NimbusModel", "NimbusHarness"],
            swiftSettings: strict),
        .testTarget(
            name: "NimbusLibraryTests",
            dependencies: ["NimbusLibrary", "NimbusProtocol", "NimbusModel", "NimbusStorage", "NimbusHarness"],
            swiftSettings: strict),
        .testTarget(
            name: "NimbusPlayerTests",
            dependencies: ["NimbusPlayer", "NimbusDecoder", "NimbusOutput", "NimbusPCM", "NimbusInput", "NimbusModel", "NimbusHarness"],
            swiftSettings: strict),
        .testTarget(
            name: "BindingsTests",
            dependencies: ["CCurl", "CMpg123", "CVorbis", "CFLAC", "CALSA", "CSQLite", "NimbusHarness"],
            swiftSettings: strict),
        // Runs the real nimbusd binary next to real MPD, mpc and python3-mpd.
        .testTarget(
            name: "DaemonTests", dependencies: ["nimbusd", "nimbus", "NimbusHarness", "CSQLite"], exclude: ["Scripts", "Recorded"], swiftSettings: strict),
    ]
)
