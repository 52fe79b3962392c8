import NimbusConfig
import NimbusOutput
import NimbusPCM
import NimbusSupport

/// MPD's `filter { plugin "…" name "…" }` blocks and an output's `filters "a, b"`: each named
/// filter becomes a stage of that output's chain, made anew for each thread that plays it.
/// Plugins: `route` (channels copied as `routes` says), `normalize` (MPD's automatic gain) and
/// `null` (nothing). An unknown plugin or name makes the output unusable with MPD's message,
/// so `status` and `--check` say why.
enum OutputFilters {
    /// The filter blocks by name; blocks without a name or with an unknown plugin are reported.
    static func named(_ blocks: [ConfigBlock], logger: Logger) -> [String: ConfigBlock] {
        var named: [String: ConfigBlock] = [:]
        for block in blocks {
            guard let name = block.value("name") else {
                logger.warning("config: \(block.location): filter without \"name\"; ignored")
                continue
            }
            named[name] = block
        }
        return named
    }

    /// The stages `list` (an output's `filters`) names, as a maker for each thread; throws
    /// MPD's errors for what cannot be built, checked once here so the threads never fail.
    static func maker(_ list: String, blocks: [String: ConfigBlock]) throws(FilterError) -> @Sendable () -> [any Filter] {
        var makers: [@Sendable () -> (any Filter)?] = []
        for name in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let block = blocks[name] else { throw FilterError("No such filter: \(name)") }
            switch block.value("plugin") {
            case "route":
                let routes = block.value("routes") ?? "0>0, 1>1"
                _ = try RouteFilter(routes: routes)
                makers.append { try? RouteFilter(routes: routes) }
            case "normalize": makers.append { NormalizeFilter() }
            case "null": break
            case let plugin?: throw FilterError("No such filter plugin: \(plugin)")
            case nil: throw FilterError("No filter plugin specified")
            }
        }
        let all = makers
        return { all.compactMap { $0() } }
    }
}
