import Foundation
import GroupieCore
import GroupieStorage
import ServiceLifecycle
import Synchronization

/// Fans a group's events out to the streams of its members' phones. Publishing never waits
/// on a subscriber: each has a bounded buffer, and one that overflows is cut off and told
/// to resync (it reconnects with `Last-Event-ID` and replays from the database).
///
/// A stream belongs to a member: when the hub publishes the `member-left` event of a player
/// (who left, was removed, joined another group or erased themselves), that player's streams
/// of the group end after delivering it, so nothing more of the group reaches them.
///
/// Heartbeats come from the hub's one clock (`run`), not a timer per stream: ten thousand
/// open streams cost ten thousand subscriptions, not ten thousand more tasks. The streams are
/// spread over `heartbeatSlots` ticks of each period, so their heartbeats do not all fall due
/// at the same instant.
final class EventHub: Service, Sendable {
    static let bufferSize = 256
    static let heartbeatSlots = 16

    enum Message: Sendable {
        case event(GroupEvent)
        case heartbeat
        /// For staff only (the subscribers of every group): the group's photos held for review
        /// changed (one held, shared or kept hidden), which tells the group nothing.
        case reviewChanged(groupId: String)
        /// For staff only: a group was made. Its creator's joining is stored as no event of the
        /// new group, so nothing else would tell the venue's page.
        case groupCreated(groupId: String)
    }

    final class Subscription: Sendable {
        let id = UUID()
        let groupId: String
        let playerId: String
        /// Which tick of each heartbeat period beats this stream.
        let heartbeatSlot: Int
        let stream: AsyncStream<Message>
        let continuation: AsyncStream<Message>.Continuation
        private let overflow = Mutex(false)

        init(groupId: String, playerId: String, heartbeatSlot: Int) {
            self.groupId = groupId
            self.playerId = playerId
            self.heartbeatSlot = heartbeatSlot
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

    /// A fault to inject for the crash tests, from `GROUPIE_FAULT_CRASH_BEFORE_PUBLISHING` (an
    /// event kind): the process kills itself when it is about to publish an event of that kind.
    /// Never set in service.
    static let crashBeforePublishing = ProcessInfo.processInfo.environment["GROUPIE_FAULT_CRASH_BEFORE_PUBLISHING"].flatMap(GroupEventKind.init(rawValue:))

    let heartbeat: Duration
    private let subscriptions = Mutex<[String: [UUID: Subscription]]>([:])
    private let nextSlot = Atomic<Int>(0)
    /// The newest event of each group handed to subscribers here, so that an announcement from
    /// the database of an event already delivered costs nothing.
    private let published = Mutex<[String: Int]>([:])

    /// The key under which a subscription gets every group's events: the staff console's, which
    /// picks those of its venue.
    static let everyGroup = "*"

    /// Hands a staff notice told here to the other instances (the store's `announce`).
    let share: @Sendable (StaffNotice) -> Void

    /// `heartbeat`: how often each stream hears that it is still open, when nothing happens;
    /// `share`: what carries staff notices to the other instances' pages.
    init(heartbeat: Duration = .seconds(15), share: @escaping @Sendable (StaffNotice) -> Void = { _ in }) {
        precondition(heartbeat > .zero, "a heartbeat needs a period")
        self.heartbeat = heartbeat
        self.share = share
    }

    func subscribe(groupId: String, playerId: String) -> Subscription {
        let slot = Int(UInt(bitPattern: nextSlot.wrappingAdd(1, ordering: .relaxed).oldValue) % UInt(Self.heartbeatSlots))
        let subscription = Subscription(groupId: groupId, playerId: playerId, heartbeatSlot: slot)
        subscriptions.withLock { $0[groupId, default: [:]][subscription.id] = subscription }
        return subscription
    }

    /// Runs `body` with a subscription, which hears the hub's heartbeats too, and ends it when
    /// `body` returns: what every event stream does around its writing.
    func withSubscription<T>(groupId: String, playerId: String, _ body: (Subscription) async throws -> T) async rethrows -> T {
        let subscription = subscribe(groupId: groupId, playerId: playerId)
        EventStreamMetrics.open.increment()
        defer {
            unsubscribe(subscription)
            EventStreamMetrics.open.decrement()
        }
        return try await body(subscription)
    }

    /// The heartbeat clock: each tick beats the streams of one slot, so every stream hears one
    /// heartbeat per period. The slots due are counted from the clock, not from the wake-ups,
    /// so a tick that comes late (a busy machine) beats every slot it was late for.
    func run() async throws {
        let tick = heartbeat / Self.heartbeatSlots
        let start = ContinuousClock.now
        var ticked = 0
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: tick) }
            } catch {
                return
            }
            let due = Int((ContinuousClock.now - start) / tick)
            guard due > ticked else { continue }
            beat(slots: Set((ticked..<min(due, ticked + Self.heartbeatSlots)).map { $0 % Self.heartbeatSlots }))
            ticked = due
        }
    }

    /// Hands a heartbeat to the streams of `slots`.
    func beat(slots: Set<Int>) {
        let due = subscriptions.withLock { all in
            all.values.flatMap { $0.values.filter { slots.contains($0.heartbeatSlot) } }
        }
        for subscription in due { subscription.continuation.yield(.heartbeat) }
    }

    func unsubscribe(_ subscription: Subscription) {
        subscription.continuation.finish()
        subscriptions.withLock { all in
            all[subscription.groupId]?[subscription.id] = nil
            if all[subscription.groupId]?.isEmpty == true { all[subscription.groupId] = nil }
        }
    }

    /// Hands committed events to the streams of their groups; events of several groups (an
    /// erasure's) go to each group in their order.
    func publish(_ events: [GroupEvent]) {
        if let kind = Self.crashBeforePublishing, events.contains(where: { $0.kind == kind }) {
            // The fault the crash tests inject: the change and its events are committed, and the
            // process dies before a stream hears of them.
            kill(getpid(), SIGKILL)
        }
        var start = events.startIndex
        while start < events.endIndex {
            let groupId = events[start].groupId
            let end = events[start...].firstIndex { $0.groupId != groupId } ?? events.endIndex
            publish(Array(events[start..<end]), groupId: groupId)
            start = end
        }
    }

    private func publish(_ events: [GroupEvent], groupId: String) {
        let targets = subscriptions.withLock { Array(($0[groupId] ?? [:]).values) + Array(($0[Self.everyGroup] ?? [:]).values) }
        if let newest = events.last?.seq, !targets.isEmpty {
            published.withLock { marks in
                // Bounded: a mark only saves a fetch, and a forgotten one costs one.
                if marks.count > 100_000 { marks.removeAll() }
                marks[groupId] = max(marks[groupId] ?? 0, newest)
            }
        }
        let departed = Set(events.compactMap(Self.departedPlayer))
        for subscription in targets {
            for event in events { subscription.deliver(.event(event)) }
            if departed.contains(subscription.playerId) { subscription.continuation.finish() }
        }
    }

    /// Tells the staff's live pages, here and on the other instances, that the group's photos
    /// waiting for review changed: a held photo stores no event (its group must not hear of
    /// it), so nothing else would.
    func reviewChanged(groupId: String) {
        tell(.reviewChanged(groupId: groupId))
    }

    /// Tells the staff's live pages, here and on the other instances, that a group was made,
    /// right after its commit.
    func groupCreated(groupId: String) {
        tell(.groupCreated(groupId: groupId))
    }

    private func tell(_ notice: StaffNotice) {
        heard(notice)
        share(notice)
    }

    /// Hands a staff notice to the staff's live pages here only: what another instance told.
    func heard(_ notice: StaffNotice) {
        switch notice {
        case .reviewChanged(let groupId): tellStaff(.reviewChanged(groupId: groupId))
        case .groupCreated(let groupId): tellStaff(.groupCreated(groupId: groupId))
        }
    }

    private func tellStaff(_ message: Message) {
        let targets = subscriptions.withLock { Array(($0[Self.everyGroup] ?? [:]).values) }
        for subscription in targets { subscription.deliver(message) }
    }

    /// Ends every stream of `playerId` in `groupId` at once: called after a membership ended and
    /// its events were published (which end the departed member's streams after their
    /// `member-left`), so that the streams end even if no event of the change reached them.
    func endStreams(groupId: String, playerId: String) {
        let targets = subscriptions.withLock { ($0[groupId] ?? [:]).values.filter { $0.playerId == playerId } }
        for subscription in targets { subscription.continuation.finish() }
    }

    /// The player whose membership the event ends, if it does.
    static func departedPlayer(_ event: GroupEvent) -> String? {
        struct Departure: Decodable { var playerId: String }
        guard event.kind == .memberLeft else { return nil }
        return try? JSONDecoder().decode(Departure.self, from: Data(event.data.utf8)).playerId
    }

    /// Whether a stream here would be given the group's events: what an announcement from
    /// another instance asks before the events are read.
    func isListening(to groupId: String) -> Bool {
        subscriptions.withLock { $0[groupId] != nil || $0[Self.everyGroup] != nil }
    }

    /// The newest event of the group handed to subscribers here, 0 when none was.
    func newestPublished(groupId: String) -> Int {
        published.withLock { $0[groupId] ?? 0 }
    }

    /// The groups that have streams here now.
    var listenedGroups: [String] {
        subscriptions.withLock { $0.keys.filter { $0 != Self.everyGroup } }
    }

    var subscriberCount: Int {
        subscriptions.withLock { $0.values.reduce(0) { $0 + $1.count } }
    }
}
