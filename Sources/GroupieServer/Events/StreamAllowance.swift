import Foundation
import Hummingbird
import Synchronization

/// How many event streams may be open: per player, per group, and in all, a share of the
/// connections the server takes, so that one token (or one group) cannot hold every connection
/// with streams and the other visitors' requests always find one.
///
/// A player's newest stream wins: past their bound, their oldest stream is ended, as a phone
/// that reloads its page (whose old stream the server notices closed only at its next write)
/// needs. A group past its bound, or the server past its share, refuses the new stream.
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
        let id = UUID()
        private let allowance: StreamAllowance
        private let groupId: String
        private let playerId: String
        /// What ends the stream, once it has one; and whether it was told to end before.
        private let ending = Mutex<(end: (@Sendable () -> Void)?, ended: Bool)>((nil, false))

        fileprivate init(allowance: StreamAllowance, groupId: String, playerId: String) {
            self.allowance = allowance
            self.groupId = groupId
            self.playerId = playerId
        }

        /// Gives the place the way to end its stream; ends it at once if it was ended before.
        func onEnd(_ end: @escaping @Sendable () -> Void) {
            let endNow = ending.withLock { state in
                state.end = end
                return state.ended
            }
            if endNow { end() }
        }

        /// Ends the stream: the player opened a newer one past their bound.
        fileprivate func end() {
            let end = ending.withLock { state in
                state.ended = true
                return state.end
            }
            end?()
        }

        deinit { allowance.release(id: id, groupId: groupId, playerId: playerId) }
    }

    private struct Weak {
        weak var place: Place?
        let id: UUID
    }

    private struct Counts {
        /// Each player's places, oldest first.
        var byPlayer: [String: [Weak]] = [:]
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
        let (place, oldest) = try counts.withLock { counts -> (Place, [Place]) in
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
            let place = Place(allowance: self, groupId: groupId, playerId: playerId)
            var mine = counts.byPlayer[playerId, default: []]
            // The oldest beyond the bound are ended; their places come back as their streams go.
            let over = max(0, mine.count + 1 - limits.perPlayer)
            let oldest = mine.prefix(over).compactMap(\.place)
            mine.append(Weak(place: place, id: place.id))
            counts.byPlayer[playerId] = mine
            counts.byGroup[groupId, default: 0] += 1
            counts.total += 1
            return (place, oldest)
        }
        for stream in oldest { stream.end() }
        return place
    }

    var open: Int { counts.withLock { $0.total } }

    fileprivate func release(id: UUID, groupId: String, playerId: String) {
        counts.withLock { counts in
            counts.byPlayer[playerId]?.removeAll { $0.id == id }
            if counts.byPlayer[playerId]?.isEmpty == true { counts.byPlayer[playerId] = nil }
            counts.byGroup[groupId, default: 1] -= 1
            if counts.byGroup[groupId] == 0 { counts.byGroup[groupId] = nil }
            counts.total -= 1
        }
    }
}
