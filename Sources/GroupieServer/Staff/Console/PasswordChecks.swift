import ServiceLifecycle
import Synchronization

/// Staff passwords checked on a thread of their own, with a bounded queue. bcrypt holds a core
/// for about a tenth of a second: on the file threads, a burst of sign-ins would keep every
/// visitor's photo read waiting behind it. Beyond `maxWaiting` checks queued, a sign-in is
/// answered at once that the server is busy, instead of waiting minutes.
struct PasswordChecks: Service {
    static let maxWaiting = 16

    private let thread = FileIO(threads: 1)
    private let queued = Queued()

    private final class Queued: Sendable {
        let count = Mutex(0)
    }

    /// Whether `password` matches `hash`; nil when too many checks wait already.
    func verify(_ password: String, hash: String) async throws -> Bool? {
        try await queue { StaffAccounts.verify(password, hash: hash) }
    }

    /// `password` hashed for storing, after `StaffAccounts`' rules for its length (which throw
    /// `StaffAccounts.Failure`); nil when too many checks wait already.
    func hash(_ password: String) async throws -> String? {
        _ = try StaffAccounts.validated(password)
        return try await queue { try StaffAccounts.hash(password) }
    }

    /// `work` on the thread, or nil when `maxWaiting` others wait already.
    private func queue<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T? {
        let admitted = queued.count.withLock { count in
            guard count < Self.maxWaiting else { return false }
            count += 1
            return true
        }
        guard admitted else { return nil }
        defer { queued.count.withLock { $0 -= 1 } }
        return try await thread.run(work)
    }

    func run() async throws {
        try await thread.run()
    }

    /// For checks that never ran as a service.
    func shutdown() async throws {
        try await thread.shutdown()
    }
}
