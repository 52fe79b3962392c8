/// What a client can switch on with `protocol enable` (MPD 0.24), in MPD's order.
public enum ProtocolFeature: String, CaseIterable, Sendable {
    case hidePlaylistsInRoot = "hide_playlists_in_root"
}
