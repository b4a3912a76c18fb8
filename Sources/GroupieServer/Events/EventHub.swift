import Foundation
import GroupieStorage
import Synchronization

/// Fans a group's events out to the streams of its members' phones. Publishing never waits
/// on a subscriber: each has a bounded buffer, and one that overflows is cut off and told
/// to resync (it reconnects with `Last-Event-ID` and replays from the database).
final class EventHub: Sendable {
    static let bufferSize = 256

    enum Message: Sendable {
        case event(GroupEvent)
        case heartbeat
    }

    final class Subscription: Sendable {
        let id = UUID()
        let groupId: String
        let stream: AsyncStream<Message>
        let continuation: AsyncStream<Message>.Continuation
        private let overflow = Mutex(false)

        init(groupId: String) {
            self.groupId = groupId
            (stream, continuation) = AsyncStream.makeStream(of: Message.self, bufferingPolicy: .bufferingOldest(EventHub.bufferSize))
        }

        var overflowed: Bool { overflow.withLock { $0 } }

        func deliver(_ message: Message) {
            if case .dropped = continuation.yield(message) {
                overflow.withLock { $0 = true }
                continuation.finish()
            }
        }
    }

    private let subscriptions = Mutex<[String: [UUID: Subscription]]>([:])

    func subscribe(groupId: String) -> Subscription {
        let subscription = Subscription(groupId: groupId)
        subscriptions.withLock { $0[groupId, default: [:]][subscription.id] = subscription }
        return subscription
    }

    func unsubscribe(_ subscription: Subscription) {
        subscription.continuation.finish()
        subscriptions.withLock { all in
            all[subscription.groupId]?[subscription.id] = nil
            if all[subscription.groupId]?.isEmpty == true { all[subscription.groupId] = nil }
        }
    }

    func publish(_ events: [GroupEvent]) {
        guard let groupId = events.first?.groupId else { return }
        let targets = subscriptions.withLock { Array(($0[groupId] ?? [:]).values) }
        for subscription in targets {
            for event in events { subscription.deliver(.event(event)) }
        }
    }

    var subscriberCount: Int {
        subscriptions.withLock { $0.values.reduce(0) { $0 + $1.count } }
    }
}
