/// The daemon's own version (the protocol version is `ProtocolVersion.current`). The number
/// is the top-level VERSION file's, which `make deb` reads; a test keeps the two equal (SwiftPM
/// has no way to read a file into a constant without a plugin).
public enum Version {
    public static let string = "0.1.0"
}
