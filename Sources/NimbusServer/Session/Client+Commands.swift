import NimbusStorage
import NimbusProtocol
import NimbusSupport

/// Running one command: the request line is tokenized, looked up, checked for permission and
/// arity and handed to its handler; a failure becomes one ACK. Deferred answers (blocking
/// work) and delayed ones (a slow password answer) finish here too.
extension Client {
    /// Every command at `log_level "verbose"`, as MPD logs them, a password masked.
    func logCommand(_ request: Tokenizer.Request) {
        var arguments = request.name == "password" ? ["********"] : request.arguments
        if let secret = AccountCommands.secretArguments[request.name], secret < arguments.count { arguments[secret] = "********" }
        // A share's address may carry its password: logged without it.
        if request.name == "mount", arguments.count > 1, let share = ShareURL(arguments[1]), share.password != nil {
            arguments[1] = share.withoutPassword
        }
        let quoted = arguments.map { "\"" + String($0.flatMap { $0 == "\"" || $0 == "\\" ? ["\\", $0] : [$0] }) + "\"" }
        context.logger.debug("[\(address)] process command \(([request.name] + quoted).joined(separator: " "))")
    }

    func execute(_ line: ArraySlice<UInt8>, index: Int, deferrable: Bool) -> SessionMachine.Completion {
        let command: Command?
        let arguments: [String]
        do {
            let wordEnd = try Tokenizer.commandWordEnd(line)
            command = line.withUnsafeBufferPointer { table.lookup(word: UnsafeBufferPointer(rebasing: $0[..<(wordEnd - line.startIndex)])) }
            arguments = try Tokenizer.arguments(line, from: wordEnd)
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
        guard let command else {
            let request = Self.request(line, arguments: arguments)
            if logsCommands { logCommand(request) }
            output.ack(ProtocolError(.unknown, "unknown command \"\(request.name)\""), index: index, command: "")
            return .failed
        }
        if logsCommands { logCommand(Tokenizer.Request(name: command.name, arguments: arguments)) }
        do {
            guard command.permits(permission) else {
                throw ProtocolError(.permission, "you don't have permission for \"\(command.name)\"")
            }
            try command.checkArity(arguments.count)
            let result = try invoke(command, arguments: arguments)
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
            case .afterDelay(let delay, let work):
                if !writeBlocked { reactor.change(fd: fd, interest: []) }
                reactor.schedule(after: delay) {
                    self.finishDeferred(Result { try work() }, command: command.name)
                }
                return .deferred
            }
        } catch {
            output.ack(ErrorMapping.protocolError(for: error), index: index, command: command.name)
            return outputOverflows ? .close(.outputBufferFull) : .failed
        }
    }

    /// An unknown command's request, its name made from the line's command word.
    private static func request(_ line: ArraySlice<UInt8>, arguments: [String]) -> Tokenizer.Request {
        let end = line.firstIndex { $0 <= 0x20 } ?? line.endIndex
        return Tokenizer.Request(name: String(decoding: line[..<end], as: UTF8.self), arguments: arguments)
    }

    /// Hands the pending output to the handler as its response buffer, so writing a field costs
    /// an append to a local value rather than an access to this object.
    private func invoke(_ command: Command, arguments: [String]) throws -> CommandResult {
        var response = ResponseWriter()
        swap(&response, &output)
        defer { output = response }
        return try command.handler(CommandCall(arguments: arguments, session: self, context: context), &response)
    }

    private func startDeferred(_ work: @escaping @Sendable () throws -> DeferredCompletion, command: String) {
        if !writeBlocked { reactor.change(fd: fd, interest: []) }
        context.commandWork.submit {
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
        reactor.change(fd: fd, interest: .read)
        processInput()
    }

}
