import NimbusProtocol
import NimbusSupport

/// Running what the session machine decides: each request line is tokenized, looked up,
/// checked for permission and arity and handed to its handler; a failure becomes one ACK.
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
            }
        }
    }

    /// Every command at `log_level "verbose"`, as MPD logs them, a password masked.
    private func logCommand(_ request: Tokenizer.Request) {
        let arguments = request.name == "password" ? ["********"] : request.arguments
        let quoted = arguments.map { "\"" + String($0.flatMap { $0 == "\"" || $0 == "\\" ? ["\\", $0] : [$0] }) + "\"" }
        context.logger.debug("[\(address)] process command \(([request.name] + quoted).joined(separator: " "))")
    }

    private func log(_ reason: SessionMachine.CloseReason) {
        switch reason {
        case .malformedRequest: context.logger.warning("[\(address)] malformed command")
        case .commandDuringIdle: context.logger.warning("[\(address)] command during idle")
        case .idleInCommandList: context.logger.warning("[\(address)] not possible in command list: idle or noidle")
        case .commandListTooLong: context.logger.error("[\(address)] command list size is larger than the max")
        case .lineTooLong: context.logger.warning("[\(address)] request line too long; closing")
        case .outputBufferFull: context.logger.error("[\(address)] Output buffer is full")
        }
    }

    private func execute(_ line: ArraySlice<UInt8>, index: Int, deferrable: Bool) -> SessionMachine.Completion {
        let request: Tokenizer.Request
        do {
            request = try Tokenizer.tokenize(line)
        } catch .notACommand {
            return .close(.malformedRequest)
        } catch .invalidCommandName {
            output.ack(ProtocolError(.unknown, "Invalid word character"), index: index, command: "")
            return .finish
        } catch .tooManyArguments {
            output.ack(.argument("Too many arguments"), index: index, command: "")
            return .failed
        } catch {
            output.ack(ProtocolError(.unknown, error.message), index: index, command: "")
            return .failed
        }
        if logsCommands { logCommand(request) }
        guard let command = server.table.lookup(request.name) else {
            output.ack(ProtocolError(.unknown, "unknown command \"\(request.name)\""), index: index, command: "")
            return .failed
        }
        do {
            guard command.permits(permission) else {
                throw ProtocolError(.permission, "you don't have permission for \"\(command.name)\"")
            }
            try command.checkArity(request.arguments.count)
            let result = try invoke(command, arguments: request.arguments)
            if outputOverflows { return .close(.outputBufferFull) }
            switch result {
            case .ok: return .ok
            case .idle(let subscriptions): return .idle(subscriptions)
            case .close: return .finish
            case .kill: return .kill
            case .deferred(let work):
                guard deferrable else {
                    output.append(try work()())
                    return outputOverflows ? .close(.outputBufferFull) : .ok
                }
                startDeferred(work, command: command.name)
                return .deferred
            case .later(let delay, let work):
                if !writeBlocked { server.reactor.change(fd: fd, interest: []) }
                server.reactor.schedule(after: delay) {
                    self.finishDeferred(Result { try work() }, command: command.name)
                }
                return .deferred
            }
        } catch {
            output.ack(ErrorMapping.protocolError(for: error), index: index, command: command.name)
            return outputOverflows ? .close(.outputBufferFull) : .failed
        }
    }

    /// Hands the pending output to the handler as its response buffer, so writing a field costs
    /// an append to a local value rather than an access to this object.
    private func invoke(_ command: Command, arguments: [String]) throws -> CommandResult {
        var response = ResponseWriter()
        swap(&response, &output)
        defer { output = response }
        return try command.handler(CommandCall(arguments: arguments, client: self, context: context), &response)
    }

    private func startDeferred(_ work: @escaping @Sendable () throws -> DeferredCompletion, command: String) {
        if !writeBlocked { server.reactor.change(fd: fd, interest: []) }
        BlockingWork.shared.submit {
            let result = Result { try work() }
            // The core half runs even if the client hung up meanwhile: the command was given.
            Task { @CoreActor in self.finishDeferred(result.flatMap { completion in Result { try completion() } }, command: command) }
        }
    }

    /// The deferred command's answer, then whatever the client sent meanwhile.
    private func finishDeferred(_ result: Result<ResponseWriter, any Error>, command: String) {
        guard !isClosed else { return }
        switch result {
        case .success(let response):
            output.append(response)
            if outputOverflows {
                log(.outputBufferFull)
                return closeNow()
            }
            session.deferredFinished(succeeded: true, now: MonotonicClock.now())
        case .failure(let error):
            output.ack(ErrorMapping.protocolError(for: error), index: 0, command: command)
            session.deferredFinished(succeeded: false, now: MonotonicClock.now())
        }
        guard !writeBlocked else { return flush() }
        server.reactor.change(fd: fd, interest: .read)
        processInput()
    }

    /// MPD closes a connection whose pending output would exceed its buffer.
    private var outputOverflows: Bool {
        output.count + unsent.count - unsentOffset > context.settings.outputLimit
    }
}
