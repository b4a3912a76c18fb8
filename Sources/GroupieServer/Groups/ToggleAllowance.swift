import Foundation
import GroupieCore
import Hummingbird
import Synchronization

/// How often one member may switch something on and off for the group to see: a claim on a
/// task and its release, a reaction and its taking back. Each switch is an event every phone of
/// the group receives, so a child who keeps tapping (or a script) must not flood the group.
/// Counted in the store, so that instances sharing a database share the count; one member's
/// switches are counted one after another on each instance, so that many sent at once cannot
/// all read the same count before any is recorded.
struct ToggleAllowance: Sendable {
    /// Far more than a child taps in a minute of play.
    static let perMinute = 60

    let counter: AttemptLimiter
    private let turns = KeyedTurns()

    init(counter: AttemptLimiter) {
        self.counter = counter
    }

    /// Runs `change` unless the player has switched `perMinute` times in the last minute (429
    /// `too-many-changes`, and `change` does not run); counts it when it changed something.
    func take<T: Sendable>(_ player: Player, now: Date, _ change: () async throws -> T, changed: (T) -> Bool) async throws -> T {
        try await turns.inTurn(player.id) {
            if let seconds = await counter.retryAfter(player.id, now: now) {
                throw Problem(
                    .tooManyRequests, code: "too-many-changes",
                    detail: "Too many claims or reactions in a minute; try again in \(seconds) seconds.",
                    headers: [.retryAfter: "\(seconds)"]
                )
            }
            let result = try await change()
            if changed(result) { await counter.recordFailure(player.id, now: now) }
            return result
        }
    }
}

/// One turn at a time per key: a caller waits for the one before it with the same key to finish.
final class KeyedTurns: Sendable {
    /// The keys taken, each with the callers waiting for it in order.
    private let waiting = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])

    func inTurn<T: Sendable>(_ key: String, _ body: () async throws -> T) async throws -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = waiting.withLock { waiting -> Bool in
                guard waiting[key] != nil else {
                    waiting[key] = []
                    return true
                }
                waiting[key]!.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
        defer { pass(key) }
        return try await body()
    }

    /// Hands the key to the next caller waiting for it, or frees it.
    private func pass(_ key: String) {
        let next = waiting.withLock { waiting -> CheckedContinuation<Void, Never>? in
            guard var queue = waiting[key], !queue.isEmpty else {
                waiting[key] = nil
                return nil
            }
            let first = queue.removeFirst()
            waiting[key] = queue
            return first
        }
        next?.resume()
    }
}
