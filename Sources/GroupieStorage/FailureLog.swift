import Foundation
import Synchronization

/// Failed attempts per key in memory: the rate-limit state of a store that one process uses
/// alone, which a restart may forget.
public final class FailureLog: Sendable {
    public init() {}

    /// A key's failures, oldest first, and the window they were recorded for.
    private struct Entry {
        var window: TimeInterval
        var dates: [Date]
    }

    private let failures = Mutex<[String: Entry]>([:])

    public func failures(of key: String, within window: TimeInterval, now: Date) -> [Date] {
        failures.withLock { failures in
            guard let entry = failures[key] else { return [] }
            let recent = entry.dates.filter { now.timeIntervalSince($0) < window }
            failures[key] = recent.isEmpty ? nil : Entry(window: entry.window, dates: recent)
            return recent
        }
    }

    public func forget(_ key: String) {
        _ = failures.withLock { $0.removeValue(forKey: key) }
    }

    public func record(_ key: String, now: Date, window: TimeInterval) {
        failures.withLock { failures in
            var recent = (failures[key]?.dates ?? []).filter { now.timeIntervalSince($0) < window }
            // Oldest first, as `failures(of:)` promises, though concurrent requests may record
            // their failures out of order.
            recent.insert(now, at: recent.firstIndex { $0 > now } ?? recent.endIndex)
            failures[key] = Entry(window: window, dates: recent)
            // Forget keys that went quiet, each by its own window (a sign-in lock's quarter of an
            // hour outlives a minute's count), so that the table does not grow without bound.
            if failures.count > 10_000 {
                failures = failures.filter { _, entry in entry.dates.contains { now.timeIntervalSince($0) < entry.window } }
            }
        }
    }
}
