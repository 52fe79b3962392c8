import NimbusProtocol
import NimbusSupport

/// MPD's client_process_line: `noidle`, idle discipline, command lists, then single commands.
extension Client {
    enum Outcome: Equatable {
        case ok, error, idle
        /// Drop the connection, discarding unsent output.
        case close
        /// Send what is pending, then drop the connection.
        case finish
        case kill
        /// A deferred command runs elsewhere; the next lines wait for its answer.
        case suspended
    }

    /// Runs every complete line in the input buffer, then sends all responses in one write.
    func processInput() {
        var start = 0
        defer { flush() }
        defer { consumeInput(upTo: start) }
        while !isClosed, !writeBlocked, !awaitingWork,
            let newline = input[start..<inputCount].firstIndex(of: 0x0A)
        {
            let line = Tokenizer.trimmedLine(input[start..<newline])
            start = newline + 1
            switch process(line) {
            case .ok, .error, .idle:
                continue
            case .close:
                closeNow()
                return
            case .finish:
                closeAfterFlush = true
            case .kill:
                closeNow()
                context.onKill()
                return
            case .suspended:
                return
            }
            break
        }
    }

    private func consumeInput(upTo end: Int) {
        guard end > 0, !isClosed else { return }
        let remaining = inputCount - end
        if remaining > 0 {
            input.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress!.update(from: buffer.baseAddress! + end, count: remaining)
            }
        }
        inputCount = remaining
    }

    private func process(_ line: ArraySlice<UInt8>) -> Outcome {
        if line.elementsEqual("noidle".utf8) {
            // A stray noidle (the idle answer already went out) gets no reply: ncmpcpp relies on it.
            if idleWaiting { cancelIdle() }
            return .ok
        }
        if idleWaiting {
            context.logger.warning("[\(number)] command during idle")
            return .close
        }
        if commandList != nil {
            if line.elementsEqual("command_list_end".utf8) {
                let list = commandList!
                commandList = nil
                return runList(list)
            }
            guard commandList!.add(line, limit: context.settings.maxCommandListSize) else {
                context.logger.error("[\(number)] command list size is larger than the max")
                return .close
            }
            return .ok
        }
        if line.elementsEqual("command_list_begin".utf8) {
            commandList = CommandListBuilder(okMode: false)
            return .ok
        }
        if line.elementsEqual("command_list_ok_begin".utf8) {
            commandList = CommandListBuilder(okMode: true)
            return .ok
        }
        let outcome = execute(line, index: 0, deferrable: true)
        if outcome == .ok { output.ok() }
        return outcome
    }

    private func runList(_ list: CommandListBuilder) -> Outcome {
        for index in list.lines.indices {
            let outcome = execute(list.text[list.lines[index]], index: index)
            guard outcome == .ok else { return outcome }
            if list.okMode { output.listOK() }
        }
        output.ok()
        return .ok
    }

    /// Tokenizes, looks up, checks permission and arity, runs the handler and turns a failure
    /// into one ACK line.
    private func execute(_ line: ArraySlice<UInt8>, index: Int, deferrable: Bool = false) -> Outcome {
        let request: Tokenizer.Request
        do {
            request = try Tokenizer.tokenize(line)
        } catch .notACommand {
            context.logger.warning("[\(number)] malformed command")
            return .close
        } catch .invalidCommandName {
            output.ack(ProtocolError(.unknown, "Invalid word character"), index: index, command: "")
            return .finish
        } catch .tooManyArguments {
            output.ack(.argument("Too many arguments"), index: index, command: "")
            return .error
        } catch {
            output.ack(ProtocolError(.unknown, error.message), index: index, command: "")
            return .error
        }
        guard let command = server.table.lookup(request.name) else {
            output.ack(ProtocolError(.unknown, "unknown command \"\(request.name)\""), index: index, command: "")
            return .error
        }
        do {
            guard command.permits(permission) else {
                throw ProtocolError(.permission, "you don't have permission for \"\(command.name)\"")
            }
            try command.checkArity(request.arguments.count)
            let result = try invoke(command, arguments: request.arguments)
            if outputOverflows { return .close }
            switch result {
            case .ok: return .ok
            case .idle:
                answerIdleIfPending()
                return .idle
            case .close: return .finish
            case .kill: return .kill
            case .deferred(let work):
                guard deferrable else {
                    output.append(try work())
                    return outputOverflows ? .close : .ok
                }
                startDeferred(work, command: command.name)
                return .suspended
            }
        } catch {
            output.ack(ErrorMapping.protocolError(for: error), index: index, command: command.name)
            return outputOverflows ? .close : .error
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

    private func startDeferred(_ work: @escaping @Sendable () throws -> ResponseWriter, command: String) {
        awaitingWork = true
        if !writeBlocked { server.reactor.change(fd: fd, interest: []) }
        BlockingWork.shared.submit {
            let result = Result { try work() }
            Task { @CoreActor in self.finishDeferred(result, command: command) }
        }
    }

    /// The deferred command's answer, then whatever the client sent meanwhile.
    private func finishDeferred(_ result: Result<ResponseWriter, any Error>, command: String) {
        guard !isClosed else { return }
        awaitingWork = false
        lastActivity = MonotonicClock.now()
        switch result {
        case .success(let response):
            output.append(response)
            if outputOverflows { return closeNow() }
            output.ok()
        case .failure(let error):
            output.ack(ErrorMapping.protocolError(for: error), index: 0, command: command)
        }
        flush()
        guard !isClosed, !writeBlocked else { return }
        server.reactor.change(fd: fd, interest: .read)
        processInput()
    }

    /// MPD closes a connection whose pending output would exceed its buffer.
    private var outputOverflows: Bool {
        guard output.count + unsent.count - unsentOffset > context.settings.outputLimit else { return false }
        context.logger.error("[\(number)] Output buffer is full")
        return true
    }
}
