import Foundation
import GroupieStorage
import Logging
import HummingbirdBcrypt

/// Failed sign-ins, counted per e-mail address and per client address in a sliding window:
/// guessing one member's password stops after a few tries, guessing many from one machine soon
/// after; a member whose address is under its limit can always sign in.
struct StaffLoginLimits: Sendable {
    static let perAccount = 10
    static let perAddress = 50
    static let window: Duration = .seconds(15 * 60)

    private let byAccount: JoinRateLimiter
    private let byAddress: JoinRateLimiter

    init(store: any GroupieStore, logger: Logger) {
        byAccount = JoinRateLimiter(store: store, scope: "staff-account", limit: Self.perAccount, window: Self.window, logger: logger)
        byAddress = JoinRateLimiter(store: store, scope: "staff-address", limit: Self.perAddress, window: Self.window, logger: logger)
    }

    /// Seconds to wait, or nil when a sign-in may be tried now.
    func retryAfter(email: String, address: String, now: Date) async -> Int? {
        let waits = [await byAccount.retryAfter(email, now: now), await byAddress.retryAfter(address, now: now)].compactMap { $0 }
        return waits.max()
    }

    func recordFailure(email: String, address: String, now: Date) async {
        await byAccount.recordFailure(email, now: now)
        await byAddress.recordFailure(address, now: now)
    }

    /// What an unknown address is checked against, so that it costs as long as a known one.
    static let unknownAccountHash = Bcrypt.hash(StaffSession.newToken(), cost: StaffAccounts.cost)
}

enum Waiting {
    /// "Try again in 10 minutes", rounded up to the minute (or seconds under one).
    static func inWords(seconds: Int) -> String {
        if seconds < 60 { return "Try again in \(seconds) second\(seconds == 1 ? "" : "s")." }
        let minutes = (seconds + 59) / 60
        return "Try again in \(minutes) minute\(minutes == 1 ? "" : "s")."
    }
}
