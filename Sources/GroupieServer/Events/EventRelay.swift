import Foundation
import GroupieStorage
import Logging
import ServiceLifecycle

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
    /// Events read per announcement at most; a stream reads a longer gap itself.
    static let batch = 64
    var sweep: Duration = .seconds(5)

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
            for await announcement in announcements.cancelOnGracefulShutdown() {
                await handle(announcement)
            }
            group.cancelAll()
        }
    }

    func handle(_ announcement: EventAnnouncement) async {
        switch announcement {
        case .committed(let groupId, let seq):
            await relay(groupId: groupId, upTo: seq)
        case .resumed:
            for groupId in hub.listenedGroups { await relay(groupId: groupId, upTo: Int.max) }
        case .staff(let notice):
            hub.heard(notice)
        }
    }

    /// Relays what the listened groups stored and no announcement told of.
    func lookAtNewest() async {
        let groups = hub.listenedGroups
        guard !groups.isEmpty else { return }
        do {
            for (groupId, seq) in try await database.newestEvents(of: groups) where seq > hub.newestPublished(groupId: groupId) {
                await relay(groupId: groupId, upTo: seq)
            }
        } catch {
            logger.warning("cannot look at the newest events of the groups listened to: \(error)")
        }
    }

    func relay(groupId: String, upTo seq: Int) async {
        guard hub.isListening(to: groupId) else { return }
        let newest = hub.newestPublished(groupId: groupId)
        guard seq > newest else { return }
        do {
            let after = seq == Int.max ? newest : max(newest, seq - Self.batch)
            hub.publish(try await database.events(groupId: groupId, after: after, limit: Self.batch))
        } catch {
            logger.warning("cannot read the events another instance stored: \(error)", metadata: ["group": "\(groupId)"])
        }
    }
}
