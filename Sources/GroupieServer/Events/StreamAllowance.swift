import Hummingbird
import Synchronization

/// How many event streams may be open: per player, per group, and in all, a share of the
/// connections the server takes, so that one token (or one group) cannot hold every connection
/// with streams and the other visitors' requests always find one.
///
/// A stream's place is taken before its response is made and given back when its `Place` goes
/// (the stream ended, or its response was never written), so that no path forgets it.
final class StreamAllowance: Sendable {
    struct Limits: Sendable {
        var perPlayer: Int
        var perGroup: Int
        var total: Int
    }

    /// One open stream's place; gives it back when released.
    final class Place: Sendable {
        private let allowance: StreamAllowance
        private let groupId: String
        private let playerId: String

        fileprivate init(allowance: StreamAllowance, groupId: String, playerId: String) {
            self.allowance = allowance
            self.groupId = groupId
            self.playerId = playerId
        }

        deinit { allowance.release(groupId: groupId, playerId: playerId) }
    }

    private struct Counts {
        var byPlayer: [String: Int] = [:]
        var byGroup: [String: Int] = [:]
        var total = 0
    }

    let limits: Limits
    private let counts = Mutex(Counts())

    init(limits: Limits) {
        self.limits = limits
    }

    /// A place for a stream of `playerId` in `groupId`, or the problem that says why there is none.
    func take(groupId: String, playerId: String) throws -> Place {
        try counts.withLock { counts in
            if counts.byPlayer[playerId, default: 0] >= limits.perPlayer {
                throw Problem(
                    .tooManyRequests, code: "too-many-streams",
                    detail: "This player has \(limits.perPlayer) event streams open already; close one (another tab) first.", headers: [.retryAfter: "5"]
                )
            }
            if counts.byGroup[groupId, default: 0] >= limits.perGroup {
                throw Problem(
                    .tooManyRequests, code: "too-many-streams",
                    detail: "This group has \(limits.perGroup) event streams open already.", headers: [.retryAfter: "5"]
                )
            }
            if counts.total >= limits.total {
                throw Problem(
                    .serviceUnavailable, code: "streams-full",
                    detail: "The server has as many event streams open as it takes; the page updates when you reload it.", headers: [.retryAfter: "10"]
                )
            }
            counts.byPlayer[playerId, default: 0] += 1
            counts.byGroup[groupId, default: 0] += 1
            counts.total += 1
        }
        return Place(allowance: self, groupId: groupId, playerId: playerId)
    }

    var open: Int { counts.withLock { $0.total } }

    fileprivate func release(groupId: String, playerId: String) {
        counts.withLock { counts in
            counts.byPlayer[playerId, default: 1] -= 1
            if counts.byPlayer[playerId] == 0 { counts.byPlayer[playerId] = nil }
            counts.byGroup[groupId, default: 1] -= 1
            if counts.byGroup[groupId] == 0 { counts.byGroup[groupId] = nil }
            counts.total -= 1
        }
    }
}
