import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// Counts failed joins per key (a player, a client address) in a sliding window, so that
/// guessing join codes does not pay. Successful joins are not counted.
///
/// Two limits work together: a low one per player, so that a child who mistypes is slowed
/// down alone, and a high one per client address (a school class shares the museum's Wi-Fi
/// address; its mistakes together stay far below it), which stops guessing with a stream of
/// new players from one machine. `/j/{code}` pages count unknown codes against the address.
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

/// The address a request comes from, as the rate limits see it.
struct ClientAddress: Sendable {
    /// Behind a reverse proxy, the last `X-Forwarded-For` entry (the one the proxy added).
    let trustForwardedFor: Bool

    func of(_ request: Request, context: GroupieRequestContext) -> String {
        if trustForwardedFor, let forwarded = request.headers[.xForwardedFor]?.split(separator: ",").last {
            return forwarded.trimmingCharacters(in: .whitespaces)
        }
        return context.remoteAddress?.ipAddress ?? "unknown"
    }
}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
}
