import NimbusDecoder
import NimbusEncoder
import NimbusOutput
import NimbusSources
import NimbusStorage

/// What `nimbusd --version` lists after the version, in MPD's layout: every plugin of every
/// registry the daemon is built with, so a user (or a script) sees what this build can do.
public enum PluginList {
    public static var text: String {
        var lines = ["", "Database plugins:", " simple", "", "Storage plugins:"]
        lines.append(" local " + CloudProviderRegistry.standard.plugins.map(\.type).joined(separator: " "))
        lines += ["", "Decoders plugins:"]
        for plugin in DecoderRegistry.standard.plugins {
            let suffixes = plugin.suffixes.count > 40 ? plugin.suffixes.prefix(40).joined(separator: " ") + " …" : plugin.suffixes.joined(separator: " ")
            lines.append(" [\(plugin.name)] \(suffixes)")
        }
        lines += ["", "Filters:", " soxr swresample normalize route null equalizer balance crossfeed", ""]
        lines += ["Output plugins:", " " + OutputRegistry.standard.plugins.map(\.type).joined(separator: " "), ""]
        lines += ["Encoder plugins:", " " + EncoderRegistry.standard.names.joined(separator: " "), ""]
        lines += ["Playlist plugins:", " " + PlaylistFormats.standard.formats.map(\.name).joined(separator: " "), ""]
        lines += ["Input plugins:", " file curl"]
        return lines.joined(separator: "\n")
    }
}
