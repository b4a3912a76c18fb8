import Foundation
import GroupieCore
import GroupieStorage
import Logging
import HummingbirdBcrypt

/// Sign-in attempts, counted per e-mail address from one client address, per client address,
/// and per e-mail address from every address together, in a sliding window. Guessing one
/// member's password from one machine stops after a few tries, guessing many from one machine
/// soon after, and a guess spread over many machines at the third bound, which counts only the
/// attempts the first two let through (one address alone cannot reach it). A stranger's wrong
/// passwords lock out only the stranger's own address: a member signing in from another
/// address, under its limits, always gets in.
///
/// An admin (in the console or with `groupie staff unlock`) lifts an account's lock, and so
/// does `groupie staff reset-password`: the account's attempts before then no longer count, from
/// any address (the store keeps when, so that it holds for every instance and the command line).
///
/// An attempt is counted before its password is hashed, so that concurrent attempts cannot all
/// pass the check before any of them is counted; a sign-in that succeeds forgets the attempts of
/// its e-mail address from its client address.
struct StaffLoginLimits: Sendable {
    static let perAccountAndAddress = 10
    static let perAddress = 50
    static let perAccount = 200
    static let window: Duration = .seconds(15 * 60)

    private let byAccountAndAddress: AttemptLimiter
    private let byAddress: AttemptLimiter
    private let byAccount: AttemptLimiter

    init(store: any GroupieStore, logger: Logger) {
        byAccountAndAddress = AttemptLimiter(store: store, scope: "staff-account-address", limit: Self.perAccountAndAddress, window: Self.window, logger: logger)
        byAddress = AttemptLimiter(store: store, scope: "staff-address", limit: Self.perAddress, window: Self.window, logger: logger)
        byAccount = AttemptLimiter(store: store, scope: "staff-account", limit: Self.perAccount, window: Self.window, logger: logger)
    }

    /// Counts an attempt, then says how many seconds to wait when it is one too many, or nil
    /// when its password may be checked now.
    func admit(email: String, address: String, now: Date) async -> Int? {
        let pair = Self.pairKey(email: email, address: address)
        let unlocked = email.isEmpty ? nil : try? await byAccount.store.staffUnlockedAt(email: email)
        await byAccountAndAddress.recordFailure(pair, now: now)
        await byAddress.recordFailure(address, now: now)
        // Counted with this attempt: the limit's own attempt may be checked, the next is refused.
        if let wait = await AttemptLimiter.retryAfter([(byAccountAndAddress, pair, unlocked), (byAddress, address, nil)], now: now, allowing: 1) {
            return wait
        }
        // Only an attempt its address may make counts against the account from everywhere: the
        // attempts one address is refused cannot add up to a lock for every other address.
        await byAccount.recordFailure(email, now: now)
        return await AttemptLimiter.retryAfter([(byAccount, email, unlocked)], now: now, allowing: 1)
    }

    /// A sign-in succeeded: the member's attempts from this address are forgotten.
    func signedIn(email: String, address: String) async {
        await byAccountAndAddress.forget(Self.pairKey(email: email, address: address))
    }

    static func pairKey(email: String, address: String) -> String { email + " from " + address }

    /// What an unknown address is checked against, so that it costs as long as a known one.
    static let unknownAccountHash = Bcrypt.hash(StaffSession.newToken(), cost: StaffAccounts.cost)
}

enum Waiting {
    /// "Try again in 10 minutes", rounded up to the minute (or seconds under one).
    static func inWords(seconds: Int) -> String {
        if seconds < 60 { return "Try again in \(EnglishCount.of(seconds, "second"))." }
        let minutes = (seconds + 59) / 60
        return "Try again in \(EnglishCount.of(minutes, "minute"))."
    }
}
