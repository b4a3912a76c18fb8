import Foundation
import GroupieStorage
import Logging
import ServiceLifecycle
import Synchronization

/// Hands the hub the events that other instances commit, and the staff notices they tell: the store announces each group's
/// newest sequence number, and the events this instance has streams for and has not handed
/// over yet are read from the database. Only a shared store (PostgreSQL) announces anything.
///
/// Streams drop what they already sent and read what they are missing, so an announcement that
/// comes twice or late changes nothing; after `.resumed` every listened group is looked at, and
/// every `sweep` the listened groups' newest events are read at once, so that an announcement
/// lost with the instance that was to send it (it crashed after its commit) is made good.
struct EventRelay: Service {
    let database: any GroupieStore
    let hub: EventHub
    let logger: Logger
    /// Events read per group and announcement at most; a stream reads a longer gap itself.
    static let batch = 64
    var sweep: Duration = .seconds(5)
    /// What was heard and not read yet: each group's newest announced event. Announcements that
    /// come while a read runs are read together in the next, in one round trip, so that a busy
    /// instance reads less often, not later and later.
    private let heard = Heard()

    init(database: any GroupieStore, hub: EventHub, logger: Logger, sweep: Duration = .seconds(5)) {
        self.database = database
        self.hub = hub
        self.logger = logger
        self.sweep = sweep
    }

    func run() async throws {
        guard let announcements = database.eventAnnouncements() else {
            // Nothing to relay: this process is the only writer. A service runs until shutdown.
            try await gracefulShutdown()
            return
        }
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: sweep)
                    if Task.isCancelled { break }
                    await lookAtNewest()
                }
            }
            group.addTask {
                for await _ in heard.signals {
                    await relay(heard.take())
                }
            }
            for await announcement in announcements.cancelOnGracefulShutdown() {
                hear(announcement)
            }
            group.cancelAll()
        }
    }

    /// Notes an announcement; its events are read by `run`'s reader, with whatever else waits.
    func hear(_ announcement: EventAnnouncement) {
        switch announcement {
        case .committed(let groupId, let seq):
            heard.add([groupId: seq])
        case .resumed:
            heard.add(Dictionary(hub.listenedGroups.map { ($0, Int.max) }, uniquingKeysWith: max))
        case .staff(let notice):
            // At once: the staff pages read what changed themselves, whatever events wait.
            hub.heard(notice)
        }
    }

    /// Handles one announcement and reads what was heard before returning, for a caller that
    /// does not `run` the relay (the tests, which hand it announcements themselves).
    func handle(_ announcement: EventAnnouncement) async {
        hear(announcement)
        await relay(heard.take())
    }

    /// Relays what the listened groups stored and no announcement told of.
    func lookAtNewest() async {
        let groups = hub.listenedGroups
        guard !groups.isEmpty else { return }
        do {
            await relay(try await database.newestEvents(of: groups))
        } catch {
            logger.warning("cannot look at the newest events of the groups listened to: \(error)")
        }
    }

    /// Reads and hands over, in one read, the events up to `seqs` (`Int.max`: the newest) that
    /// the groups listened to here have not been handed.
    func relay(_ seqs: [String: Int]) async {
        var after: [String: Int] = [:]
        for (groupId, seq) in seqs where hub.isListening(to: groupId) {
            let newest = hub.newestPublished(groupId: groupId)
            guard seq > newest else { continue }
            after[groupId] = seq == Int.max ? newest : max(newest, seq - Self.batch)
        }
        guard !after.isEmpty else { return }
        do {
            Committed.relay(try await database.events(after: after, limit: Self.batch), to: hub)
        } catch {
            // Read again by the next announcement of each group, or by the sweep within seconds.
            logger.warning("cannot read the events another instance stored: \(error)", metadata: ["groups": "\(after.count)"])
        }
    }

    /// Each group's newest announced event, gathered until the reader takes them.
    final class Heard: Sendable {
        private let seqs = Mutex<[String: Int]>([:])
        /// A signal to the reader that announcements wait; at most one is buffered.
        let signals: AsyncStream<Void>
        private let signal: AsyncStream<Void>.Continuation

        init() {
            (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        }

        func add(_ more: [String: Int]) {
            guard !more.isEmpty else { return }
            seqs.withLock { $0.merge(more, uniquingKeysWith: max) }
            signal.yield()
        }

        func take() -> [String: Int] {
            seqs.withLock { seqs in
                defer { seqs = [:] }
                return seqs
            }
        }
    }
}
