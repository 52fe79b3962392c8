import NimbusStorage
import NimbusSupport

/// Cloud accounts at run time (`accounttypes`, `addaccount`, `removeaccount`, `signin`,
/// `signout`, `listaccounts`), provided by the daemon, which knows the mounts, the library
/// and the offline pins an account touches.
@CoreActor
public protocol AccountControl: AnyObject {
    var types: [AccountType] { get }
    /// Every account with its state, its sign-in and where it came from.
    var listing: [AccountListing] { get }
    func add(_ name: String, type: String, settings: [(key: String, value: String)]) throws(AccountFailure)
    func remove(_ name: String) throws(AccountFailure)
    func signOut(_ name: String) throws(AccountFailure)
    /// What a sign-in of the account needs, gathered here; the flows do the blocking part.
    func signInRequest(_ name: String, redirect: String?) throws(AccountFailure) -> SignInRequest
    func cancelSignIn(_ name: String) throws(AccountFailure)
    /// Runs the flows (thread-safe: `signin` calls it off the core loop).
    nonisolated var flows: SignInFlows { get }
}

/// One record of `listaccounts`.
public struct AccountListing: Sendable {
    public let summary: AccountSummary
    /// `signed in`, `not needed`, `needed`, `waiting`, `expired`, `declined`, `cancelled`,
    /// `failed` or `refresh refused`.
    public let signIn: String
    /// Why the last sign-in failed.
    public let signInProblem: String?

    public init(summary: AccountSummary, signIn: String, signInProblem: String?) {
        self.summary = summary
        self.signIn = signIn
        self.signInProblem = signInProblem
    }
}

public enum AccountFailure: Error, Equatable {
    case noSuchAccount(String)
    case nameTaken(String)
    case badName(String)
    case invalid(String)
    /// A config-file account cannot be removed by a client.
    case configured(String)
    case cannotSave(String)
}
