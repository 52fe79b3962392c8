import CPulse
import Glibc
import NimbusModel

/// One client of a PulseAudio server (PipeWire's pulse server too) shared by a `pulse` output
/// and its mixer: libpulse's threaded main loop runs the protocol on its own thread, and every
/// call here is made with that loop's lock held, which is what makes the output thread (the
/// stream) and a control thread (the volume) safe together.
///
/// `@unchecked Sendable`: every mutable field is read and written only between
/// `pa_threaded_mainloop_lock` and `_unlock` (see `locked`).
final class PulseConnection: @unchecked Sendable {
    let server: String?
    private let loop: OpaquePointer
    private(set) var context: OpaquePointer?
    /// The output's stream while it is open; the mixer sets its sink input's volume.
    var stream: OpaquePointer?
    /// The volume the mixer last set (0–100), applied to each new stream; nil: the server's.
    var requestedVolume: Int?
    /// Set by `interrupt` so a `play` waiting for room returns.
    var interrupted = false

    init(server: String?) {
        self.server = server
        loop = pa_threaded_mainloop_new()
        pa_threaded_mainloop_start(loop)
    }

    deinit {
        pa_threaded_mainloop_stop(loop)
        if let stream {
            pa_stream_disconnect(stream)
            pa_stream_unref(stream)
        }
        if let context {
            pa_context_disconnect(context)
            pa_context_unref(context)
        }
        pa_threaded_mainloop_free(loop)
    }

    func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pa_threaded_mainloop_lock(loop)
        defer { pa_threaded_mainloop_unlock(loop) }
        return try body()
    }

    /// Lets go of the lock held by the caller for `body` (a pause between reconnections).
    func unlocked(_ body: () -> Void) {
        pa_threaded_mainloop_unlock(loop)
        body()
        pa_threaded_mainloop_lock(loop)
    }

    /// The user data every notification callback gets: the loop it signals.
    var signalTarget: UnsafeMutableRawPointer { UnsafeMutableRawPointer(loop) }

    func wait() { pa_threaded_mainloop_wait(loop) }
    func signal() { pa_threaded_mainloop_signal(loop, 0) }

    /// Runs an operation to its end (its callback signals the loop). Lock held.
    func finish(_ operation: OpaquePointer?) {
        guard let operation else { return }
        while pa_operation_get_state(operation) == PA_OPERATION_RUNNING { wait() }
        pa_operation_unref(operation)
    }

    /// A ready context, connecting anew when there is none or the server went away (a sound
    /// server restarted). Lock held.
    func readyContext() throws(OutputError) -> OpaquePointer {
        if let context, pa_context_get_state(context) == PA_CONTEXT_READY { return context }
        dropContext()
        let properties = pa_proplist_new()
        defer { pa_proplist_free(properties) }
        pa_proplist_sets(properties, PA_PROP_APPLICATION_NAME, "Nimbus")
        pa_proplist_sets(properties, PA_PROP_APPLICATION_ID, "org.nimbus.nimbusd")
        pa_proplist_sets(properties, PA_PROP_APPLICATION_ICON_NAME, "audio-x-generic")
        guard let created = pa_context_new_with_proplist(pa_threaded_mainloop_get_api(loop), "Nimbus", properties) else {
            throw OutputError("pa_context_new() has failed")
        }
        context = created
        pa_context_set_state_callback(created, { _, loop in pa_threaded_mainloop_signal(OpaquePointer(loop), 0) }, signalTarget)
        guard pa_context_connect(created, server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw failure("pa_context_connect() has failed")
        }
        while true {
            let state = pa_context_get_state(created)
            if state == PA_CONTEXT_READY { return created }
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
                throw failure("failed to connect to the PulseAudio server\(server.map { " \"\($0)\"" } ?? "")")
            }
            wait()
        }
    }

    /// An error naming libpulse's reason. Lock held.
    func failure(_ message: String) -> OutputError {
        guard let context else { return OutputError(message) }
        return OutputError("\(message): \(String(cString: pa_strerror(pa_context_errno(context))))")
    }

    private func dropContext() {
        if let stream {
            pa_stream_disconnect(stream)
            pa_stream_unref(stream)
            self.stream = nil
        }
        guard let context else { return }
        pa_context_set_state_callback(context, nil, nil)
        pa_context_disconnect(context)
        pa_context_unref(context)
        self.context = nil
    }

    /// The sample rate of `sink` (nil: the default sink), so Nimbus resamples once and the
    /// server not at all. Lock held.
    func sinkRate(_ sink: String?) throws(OutputError) -> UInt32? {
        let context = try readyContext()
        final class Answer {
            var rate: UInt32?
            let loop: OpaquePointer
            init(_ loop: OpaquePointer) { self.loop = loop }
        }
        let answer = Answer(loop)
        let box = Unmanaged.passRetained(answer)
        defer { box.release() }
        finish(
            pa_context_get_sink_info_by_name(
                context, sink ?? "@DEFAULT_SINK@",
                { _, info, _, user in
                    let answer = Unmanaged<Answer>.fromOpaque(user!).takeUnretainedValue()
                    if let info { answer.rate = info.pointee.sample_spec.rate }
                    pa_threaded_mainloop_signal(answer.loop, 0)
                }, box.toOpaque()))
        return answer.rate
    }
}
