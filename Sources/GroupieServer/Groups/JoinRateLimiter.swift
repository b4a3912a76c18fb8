import Foundation
import Synchronization

/// Counts failed joins per key (a player, a client address) in a sliding window, so that
/// guessing join codes does not pay. Successful joins are not counted.
final class JoinRateLimiter: Sendable {
    private let limit: Int
    private let window: TimeInterval
    private let failures = Mutex<[String: [Date]]>([:])

    init(limit: Int, window: Duration) {
        self.limit = limit
        self.window = TimeInterval(window.components.seconds)
    }

    /// Seconds until `key` may try again, or nil when it may try now.
    func retryAfter(_ key: String, now: Date) -> Int? {
        failures.withLock { failures in
            let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
            failures[key] = recent.isEmpty ? nil : recent
            guard recent.count >= limit, let oldest = recent.first else { return nil }
            return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
        }
    }

    func recordFailure(_ key: String, now: Date) {
        failures.withLock { failures in
            var recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
            recent.append(now)
            failures[key] = recent
            // Forget keys that went quiet, so that the table does not grow without bound.
            if failures.count > 10_000 {
                failures = failures.filter { $0.value.contains { now.timeIntervalSince($0) < window } }
            }
        }
    }
}
