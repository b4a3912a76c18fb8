import Foundation
@testable import GroupiePostgres
@testable import GroupieServer
import GroupieStorage
import GroupieTestSupport
import Logging
import Testing

/// Instances sharing PostgreSQL hear of each other's events after each commit; one that crashed
/// between its commit and its announcement leaves events that the others' look at the newest
/// events finds.
@Suite("Events of other instances")
struct EventRelayTests {
    @Test("A commit announced to no one (its instance died first) still reaches the other instance's streams")
    func lostAnnouncement() async throws {
        let url = try await TestPostgres.freshDatabase()
        let logger = Logger(label: "groupie-test")
        let first = try await PostgresStore.open(url: url, logger: logger), second = try await PostgresStore.open(url: url, logger: logger)
        defer { first.close(); second.close() }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let ada = try await first.createPlayer(name: "Ada", language: nil, tokenHash: Data("ada".utf8), now: now)
        let group = try await first.createGroup(venueId: "v", name: nil, creatorId: ada.id, joinableFor: 3600, now: now).group
        let hub = EventHub()
        let relay = EventRelay(database: second, hub: hub, logger: logger)
        try await hub.withSubscription(groupId: group.id, playerId: ada.id) { _ in
            let created = try await second.events(groupId: group.id, after: 0, limit: 10).last?.seq ?? 0
            await relay.lookAtNewest()
            #expect(hub.newestPublished(groupId: group.id) == created, "what the group's creation stored, read from the table")
            // Stored and committed as a write does, without the announcement that follows a commit.
            let stored = try await first.client.withConnection { connection in
                try await connection.query("BEGIN", logger: logger)
                let events = try await PostgresStore.appendEvents(
                    connection, groupId: group.id, [.memberRenamed(playerId: ada.id, name: "Ada L")], now: now, logger: logger
                )
                try await connection.query("COMMIT", logger: logger)
                return events
            }
            #expect(try await second.newestEvents(of: [group.id, "no-such-group"]) == [group.id: stored[0].seq])
            await relay.lookAtNewest()
            #expect(hub.newestPublished(groupId: group.id) == stored[0].seq)
        }
    }

    @Test("Announcements are lines of group and newest event, split under PostgreSQL's payload limit, and read back whole")
    func payloads() {
        let seqs = Dictionary(uniqueKeysWithValues: (0..<600).map { ("group-\($0)-" + String(repeating: "x", count: 20), $0 + 1) })
        let payloads = PostgresAnnouncer.payloads(seqs)
        #expect(payloads.count > 1 && payloads.allSatisfy { $0.utf8.count <= 7_000 })
        let read = payloads.flatMap(PostgresAnnouncer.announced(in:))
        #expect(Dictionary(uniqueKeysWithValues: read.map { ($0.groupId, $0.seq) }) == seqs)
    }
}
