import Foundation
import Synchronization

/// Failed attempts per key in memory: the rate-limit state of a store that one process uses
/// alone, which a restart may forget.
public final class FailureLog: Sendable {
    public init() {}

    private let failures = Mutex<[String: [Date]]>([:])

    public func failures(of key: String, within window: TimeInterval, now: Date) -> [Date] {
        failures.withLock { failures in
            let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
            failures[key] = recent.isEmpty ? nil : recent
            return recent
        }
    }

    public func forget(_ key: String) {
        _ = failures.withLock { $0.removeValue(forKey: key) }
    }

    public func record(_ key: String, now: Date, window: TimeInterval) {
        failures.withLock { failures in
            var recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
            // Oldest first, as `failures(of:)` promises, though concurrent requests may record
            // their failures out of order.
            recent.insert(now, at: recent.firstIndex { $0 > now } ?? recent.endIndex)
            failures[key] = recent
            // Forget keys that went quiet, so that the table does not grow without bound.
            if failures.count > 10_000 {
                failures = failures.filter { $0.value.contains { now.timeIntervalSince($0) < window } }
            }
        }
    }
}
