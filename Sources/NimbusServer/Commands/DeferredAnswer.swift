import NimbusProtocol

/// Where a command's blocking part runs. Local files are read in place, as MPD does; anything
/// behind a network becomes a `.deferred` answer, worked out on a blocking thread while the
/// core loop keeps serving every other client.
enum DeferredAnswer {
    static func respond(
        remote: Bool, into out: inout ResponseWriter, _ work: @escaping @Sendable () throws -> ResponseWriter
    ) throws -> CommandResult {
        guard !remote else { return .offLoop(work) }
        out.append(try work())
        return .ok
    }
}
