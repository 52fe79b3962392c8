/// Whether a partition plays, is paused or is stopped (`status`'s `state`).
public enum PlayerState: Sendable, Equatable {
    case stop, play, pause
}
