import NimbusDecoder

/// A decoder plugin as `decoders` lists it.
public struct DecoderDescription: Sendable, Equatable {
    public let name: String
    public let suffixes: [String]
    public let mimeTypes: [String]

    public init(name: String, suffixes: [String], mimeTypes: [String]) {
        self.name = name
        self.suffixes = suffixes
        self.mimeTypes = mimeTypes
    }

    init(_ plugin: any DecoderPlugin) {
        self.init(name: plugin.name, suffixes: plugin.suffixes, mimeTypes: plugin.mimeTypes)
    }
}
