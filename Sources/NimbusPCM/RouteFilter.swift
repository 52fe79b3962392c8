import Foundation
import NimbusSupport

/// A filter block that cannot be built (a malformed `routes`, an unknown plugin).
public typealias FilterError = DomainError<FilterDomain>
public enum FilterDomain {}

/// MPD's `route` filter: copies input channels to output channels as `routes "0>1, 1>0"`
/// says — each `source>destination` pair copies the source channel to that output channel.
/// The output has as many channels as the highest destination + 1; a destination no pair names,
/// or whose source the input lacks, is silent; of several sources for one destination the last
/// named wins. Upmixes stereo to four speakers (`0>0, 1>1, 0>2, 1>3`), swaps sides, picks one.
public final class RouteFilter: Filter {
    /// MPD's MAX_CHANNELS.
    public static let maximumChannels = 8

    /// For each output channel, the input channel it copies (-1: silence).
    public let sources: [Int]
    private var inputChannels = 2
    private var output = UnsafeMutableBufferPointer<Float>(start: nil, count: 0)

    /// Parses MPD's `routes` syntax; throws MPD's messages for a malformed one.
    public init(routes: String = "0>0, 1>1") throws(FilterError) {
        var sources = [Int](repeating: -1, count: Self.maximumChannels)
        var outputs = 0
        for pair in routes.split(separator: ",", omittingEmptySubsequences: false) {
            let sides = pair.split(separator: ">", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard sides.count == 2, let source = Int(sides[0]), let destination = Int(sides[1]), source >= 0, destination >= 0 else {
                throw FilterError("Malformed 'routes' specification")
            }
            guard source < Self.maximumChannels else { throw FilterError("Invalid source channel number: \(source)") }
            guard destination < Self.maximumChannels else { throw FilterError("Invalid destination channel number: \(destination)") }
            sources[destination] = source
            outputs = max(outputs, destination + 1)
        }
        self.sources = Array(sources.prefix(outputs))
    }

    deinit { output.deallocate() }

    public func open(_ format: FloatFormat) -> FloatFormat {
        inputChannels = format.channels
        return FloatFormat(sampleRate: format.sampleRate, channels: sources.count)
    }

    public func filter(_ samples: UnsafeMutableBufferPointer<Float>) -> UnsafeMutableBufferPointer<Float> {
        let frames = samples.count / max(1, inputChannels)
        let needed = frames * sources.count
        if output.count < needed {
            // Grows to the largest chunk once; the output thread's chunks are of one size.
            output.deallocate()
            output = .allocate(capacity: needed)
        }
        for frame in 0..<frames {
            let input = frame * inputChannels, out = frame * sources.count
            for (channel, source) in sources.enumerated() {
                output[out + channel] = source >= 0 && source < inputChannels ? samples[input + source] : 0
            }
        }
        return UnsafeMutableBufferPointer(rebasing: output[..<needed])
    }
}
