import NimbusProtocol
import NimbusSupport

/// Running what the session machine decides for the lines a client sent: commands (in
/// Client+Commands.swift), list and idle answers, closing.
extension Client {
    /// Runs every complete line in the input buffer, then sends all responses in one write.
    func processInput() {
        defer { flush() }
        // One reading of the clock for a batch of pipelined lines: the timeout needs no more.
        let now = MonotonicClock.now()
        while !isClosed, let action = session.next(now: now) {
            switch action {
            case .execute(let line, let index, let deferrable):
                let completion = execute(line, index: index, deferrable: deferrable)
                session.completed(completion, now: now)
            case .writeOK:
                output.ok()
            case .writeListOK:
                output.listOK()
            case .answerIdle(let fired):
                writeIdleAnswer(fired)
            case .close(let reason):
                log(reason)
                closeNow()
            case .finish:
                closeAfterFlush = true
            case .kill:
                closeNow()
                context.shutdown()
            case .rejectLongLine(let command):
                context.logger.warning("[\(address)] request line too long; dropped")
                output.ack(.argument("Line too long"), index: 0, command: command)
            }
        }
    }

    func log(_ reason: SessionMachine.CloseReason) {
        switch reason {
        case .malformedRequest: context.logger.warning("[\(address)] malformed command")
        case .commandDuringIdle: context.logger.warning("[\(address)] command during idle")
        case .idleInCommandList: context.logger.warning("[\(address)] not possible in command list: idle or noidle")
        case .commandListTooLong: context.logger.error("[\(address)] command list size is larger than the max")
        case .outputBufferFull: context.logger.error("[\(address)] Output buffer is full")
        }
    }

    /// MPD closes a connection whose pending output would exceed its buffer.
    var outputOverflows: Bool {
        output.count + unsent.count - unsentOffset > context.settings.outputLimit
    }
}
