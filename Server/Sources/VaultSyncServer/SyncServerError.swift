/// What stops the sync server or one of its commands, with a message a person can act on.
public enum SyncServerError: Error, Sendable, CustomStringConvertible {
    /// A command-line argument or setting that cannot be used.
    case invalidArgument(String)
    /// The store failed or holds something this server cannot use.
    case store(String)

    public var description: String {
        switch self {
        case .invalidArgument(let reason): return "invalid argument: \(reason)"
        case .store(let reason): return "sync store: \(reason)"
        }
    }
}
