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

    @Test("Announcements heard while a read runs are read together: every group's events reach its streams, in order, once")
    func gatheredAnnouncements() async throws {
        let url = try await TestPostgres.freshDatabase()
        let logger = Logger(label: "groupie-test")
        let first = try await PostgresStore.open(url: url, logger: logger), second = try await PostgresStore.open(url: url, logger: logger)
        defer { first.close(); second.close() }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var groups: [(player: String, group: String)] = []
        for index in 0..<3 {
            let player = try await first.createPlayer(name: "P\(index)", language: nil, tokenHash: Data("p\(index)".utf8), now: now)
            groups.append((player.id, try await first.createGroup(venueId: "v", name: nil, creatorId: player.id, joinableFor: 3600, now: now).group.id))
        }
        let hub = EventHub()
        let relay = EventRelay(database: second, hub: hub, logger: logger)
        try await hub.withSubscription(groupId: groups[0].group, playerId: groups[0].player) { one in
            try await hub.withSubscription(groupId: groups[1].group, playerId: groups[1].player) { two in
                // Made before the streams opened: what the streams start from.
                await relay.lookAtNewest()
                var stored: [String: [Int]] = [:]
                for round in 1...2 {
                    for (player, group) in groups {
                        let events = try await first.appendEvents(groupId: group, [.memberRenamed(playerId: player, name: "N\(round)")], now: now)
                        stored[group, default: []] += events.map(\.seq)
                        relay.hear(.committed(groupId: group, seq: events.last!.seq))
                    }
                }
                // One read for all that was heard; the third group has no stream here and is not read.
                await relay.handle(.committed(groupId: groups[0].group, seq: stored[groups[0].group]!.last!))
                for (index, subscription) in [one, two].enumerated() {
                    // A message that never comes fails the test instead of hanging the suite.
                    let seqs = try await within(.seconds(120), "two events on stream \(index)") {
                        var seqs: [Int] = []
                        for await message in subscription.stream {
                            if case .event(let event) = message { seqs.append(event.seq) }
                            if seqs.count == 2 { break }
                        }
                        return seqs
                    }
                    #expect(seqs == stored[groups[index].group])
                }
                #expect(hub.newestPublished(groupId: groups[2].group) == 0)
            }
        }
    }

    @Test("A group made and a photo held on one instance reach the staff pages of the other, and the first's pages once")
    func staffNotices() async throws {
        let url = try await TestPostgres.freshDatabase()
        let logger = Logger(label: "groupie-test")
        let first = try await PostgresStore.open(url: url, logger: logger), second = try await PostgresStore.open(url: url, logger: logger)
        defer { first.close(); second.close() }
        let firstHub = EventHub { first.announce($0) }, secondHub = EventHub { second.announce($0) }
        // Each relay handles what its store hears, once it listens.
        var running: [Task<Void, Never>] = []
        for (store, hub) in [(first, firstHub), (second, secondHub)] as [(PostgresStore, EventHub)] {
            let relay = EventRelay(database: store, hub: hub, logger: logger)
            let announcements = try #require(store.eventAnnouncements())
            let (listening, listens) = AsyncStream.makeStream(of: Void.self)
            running.append(Task {
                for await announcement in announcements {
                    if announcement == .resumed { listens.finish() }
                    await relay.handle(announcement)
                }
            })
            try await within(.seconds(120), "the relay listening") { for await _ in listening {} }
        }
        defer { running.forEach { $0.cancel() } }
        try await firstHub.withSubscription(groupId: EventHub.everyGroup, playerId: "staff:a") { here in
            try await secondHub.withSubscription(groupId: EventHub.everyGroup, playerId: "staff:b") { there in
                firstHub.groupCreated(groupId: "g1")
                firstHub.reviewChanged(groupId: "g1")
                let heard = try await Self.notices(on: there, until: { $0.count == 2 })
                #expect(heard == ["created g1", "review g1"])
                // What the second instance tells comes back to the first after the first's own
                // notices, which its pages heard once, when they were told.
                secondHub.reviewChanged(groupId: "g2")
                let mine = try await Self.notices(on: here, until: { $0.last == "review g2" })
                #expect(mine == ["created g1", "review g1", "review g2"])
            }
        }
    }

    /// The staff notices a subscription hears, until `done` holds of them; a notice that never
    /// comes fails the test instead of hanging the suite.
    static func notices(on subscription: EventHub.Subscription, until done: @escaping @Sendable ([String]) -> Bool) async throws -> [String] {
        try await within(.seconds(120), "staff notices") {
            var heard: [String] = []
            for await message in subscription.stream {
                switch message {
                case .groupCreated(let groupId): heard.append("created \(groupId)")
                case .reviewChanged(let groupId): heard.append("review \(groupId)")
                default: continue
                }
                if done(heard) { break }
            }
            return heard
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
