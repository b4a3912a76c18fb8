import Foundation
import GroupieCore
import Hummingbird

/// How often one member may switch something on and off for the group to see: a claim on a
/// task and its release, a reaction and its taking back. Each switch is an event every phone of
/// the group receives, so a child who keeps tapping (or a script) must not flood the group.
/// Counted in the store, so that instances sharing a database share the count.
struct ToggleAllowance: Sendable {
    /// Far more than a child taps in a minute of play.
    static let perMinute = 60

    let counter: JoinRateLimiter

    /// 429 `too-many-changes` once the player has switched `perMinute` times in the last minute;
    /// else counts this switch.
    func take(_ player: Player, now: Date) async throws {
        if let seconds = await counter.retryAfter(player.id, now: now) {
            throw Problem(
                .tooManyRequests, code: "too-many-changes",
                detail: "Too many claims or reactions in a minute; try again in \(seconds) seconds.",
                headers: [.retryAfter: "\(seconds)"]
            )
        }
        await counter.recordFailure(player.id, now: now)
    }
}
