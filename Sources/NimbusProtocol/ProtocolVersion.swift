/// The MPD protocol version Nimbus speaks, written here only: the greeting, the log and
/// `nimbusd --version` read it. Clients switch features on by it, so it must only name a
/// version whose features all work.
public enum ProtocolVersion {
    public static let current = "0.24.0"
    public static var greeting: String { "OK MPD " + current }
}
