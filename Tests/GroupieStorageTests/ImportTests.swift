import Foundation
import GroupieCore
@testable import GroupiePostgres
@testable import GroupieSQLite
@testable import GroupieStorage
import GroupieTestSupport
import PostgresNIO
import Testing

@Suite("From SQLite to PostgreSQL")
struct ImportTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("Every row of a SQLite database moves to PostgreSQL: groups, photos, events, the staff named, and numbers made again from the events")
    func importEverything() async throws {
        let contract = StoreContractTests()
        let source = try #require(try await Backend.sqlite.open() as? SQLiteStore)
        let ada = try await contract.player("Ada", in: source), bo = try await contract.player("Bo", in: source)
        let group = try await source.createGroup(venueId: "v", name: "G", creatorId: ada.id, joinableFor: 3600, now: now).group
        _ = try await source.joinGroup(code: group.joinCode, playerId: bo.id, now: now.addingTimeInterval(5)) { _ in 5 }
        let first = try await source.addPhoto(contract.photo(group, by: ada, "a", "1", key: "k"), venue: contract.venue, now: now.addingTimeInterval(60))
        _ = try await source.addPhoto(contract.photo(group, by: bo, "a", "2"), venue: contract.venue, now: now.addingTimeInterval(125.5))
        _ = try await source.hidePhoto(id: first.photo.id, reason: "blurred", venue: contract.venue, now: now.addingTimeInterval(200))
        _ = try await source.addStaff(email: "s@museum.org", passwordHash: "h", role: .editor, venueIds: ["v"], now: now)
        try await source.audit(AuditEntry(at: now, staffEmail: "s@museum.org", venueId: "v", action: "photo hidden", subject: first.photo.id, reason: "blurred"))

        let target = try #require(try await Backend.postgresql.open() as? PostgresStore)
        let copied = try await target.importRows(from: source, filter: ImportFilter(staff: ["s@museum.org"]))
        #expect(copied.first { $0.table == "group_event" }?.rows == (try await source.events(groupId: group.id, after: 0, limit: 100).count))
        #expect(try await target.counts() == (try await source.counts()))
        #expect(try await target.events(groupId: group.id, after: 0, limit: 100) == (try await source.events(groupId: group.id, after: 0, limit: 100)))
        #expect(try await target.visitTally(venueId: "v") == (try await source.visitTally(venueId: "v")))
        #expect(try await target.staffView(groupId: group.id)?.hidden.map(\.reason) == ["blurred"])
        #expect(try await target.membershipHistory(of: bo.id).map(\.groupId) == [group.id])
        #expect(try await target.allStaff() == (try await source.allStaff()))
        #expect(try await target.auditLog(venueIds: nil, staffEmail: "", limit: 10) == (try await source.auditLog(venueIds: nil, staffEmail: "", limit: 10)))
        #expect(try await target.uploadedPhoto(playerId: ada.id, groupId: group.id, key: "k", now: now) == nil, "the hidden photo's key answers nothing, as before")
        // The sequence goes on where SQLite left it.
        let next = try await target.appendEvents(groupId: group.id, [.memberRenamed(playerId: bo.id, name: "Bo B")], now: now)
        #expect(next.first?.seq == (try await source.membership(playerId: ada.id, groupId: group.id)?.version ?? 0) + 1)
        await #expect(throws: PostgresStoreError.alreadyImported(groups: 1)) { try await target.importRows(from: source) }
    }

    @Test("A venue at a time: each venue's export imports into one PostgreSQL database, and together they are the whole")
    func venueByVenue() async throws {
        let contract = StoreContractTests()
        let source = try #require(try await Backend.sqlite.open() as? SQLiteStore)
        let ada = try await contract.player("Ada", in: source), bo = try await contract.player("Bo", in: source)
        // Ada plays at both venues: first `v`, then `w`.
        let atV = try await source.createGroup(venueId: "v", name: "V", creatorId: ada.id, joinableFor: 3600, now: now).group
        _ = try await source.joinGroup(code: atV.joinCode, playerId: bo.id, now: now) { _ in 5 }
        _ = try await source.addPhoto(contract.photo(atV, by: bo, "a", "1"), venue: contract.venue, now: now.addingTimeInterval(60))
        let atW = try await source.createGroup(venueId: "w", name: "W", creatorId: ada.id, joinableFor: 3600, now: now.addingTimeInterval(600)).group
        _ = try await source.addStaff(email: "v@museum.org", passwordHash: "h", role: .editor, venueIds: ["v"], now: now)
        _ = try await source.addStaff(email: "both@museum.org", passwordHash: "h", role: .moderator, venueIds: ["v", "w"], now: now)
        _ = try await source.addStaff(email: "admin@museum.org", passwordHash: "h", role: .admin, venueIds: [], now: now)
        try await source.audit(AuditEntry(at: now, staffEmail: "v@museum.org", venueId: "v", action: "group closed", subject: atV.id, reason: nil))

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-export-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let exportedV = try await source.exportVenue("v", to: folder + "/v.sqlite")
        let exportedW = try await source.exportVenue("w", to: folder + "/w.sqlite")
        #expect(exportedV == RowCounts(players: 2, groups: 1, memberships: 2, photos: 1))
        #expect(exportedW == RowCounts(players: 1, groups: 1, memberships: 1, photos: 0))
        await #expect(throws: ExportError.fileExists(folder + "/v.sqlite")) { try await source.exportVenue("v", to: folder + "/v.sqlite") }
        let onlyW = try SQLiteStore.open(atPath: folder + "/w.sqlite")
        #expect(try await onlyW.allStaff().map(\.email).sorted() == ["admin@museum.org", "both@museum.org"])
        #expect(try await onlyW.auditLog(venueIds: nil, staffEmail: "", limit: 10).isEmpty)
        #expect(try await onlyW.allStaff().first { $0.email == "both@museum.org" }?.venueIds == ["w"])

        let target = try #require(try await Backend.postgresql.open() as? PostgresStore)
        _ = try await target.importRows(
            from: try SQLiteStore.open(atPath: folder + "/v.sqlite"), filter: ImportFilter(staff: ["v@museum.org", "both@museum.org", "admin@museum.org"])
        )
        _ = try await target.importRows(from: onlyW, filter: ImportFilter(staff: ["both@museum.org", "admin@museum.org"]))
        #expect(try await target.counts() == (try await source.counts()))
        #expect(try await target.allStaff() == (try await source.allStaff()))
        #expect(try await target.membershipHistory(of: ada.id).map(\.groupId) == [atV.id, atW.id])
        #expect(try await target.currentGroup(of: ada.id)?.id == atW.id)
        for group in [atV, atW] {
            #expect(try await target.events(groupId: group.id, after: 0, limit: 100) == (try await source.events(groupId: group.id, after: 0, limit: 100)))
        }
        #expect(try await target.visitTally(venueId: "v") == (try await source.visitTally(venueId: "v")))
        await #expect(throws: PostgresStoreError.alreadyImported(groups: 1)) { try await target.importRows(from: onlyW) }
        #expect(try await target.counts() == (try await source.counts()), "a refused import changes nothing")
    }
}

@Suite("PostgreSQL's statements")
struct PreparedStatementTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A new PostgreSQL store with a player, Ada, in a group of her own.
    func storeWithGroup() async throws -> (PostgresStore, Player, Group) {
        let store = try #require(try await Backend.postgresql.open() as? PostgresStore)
        let ada = try await StoreContractTests().player("Ada", in: store)
        return (store, ada, try await store.createGroup(venueId: "v", name: "G", creatorId: ada.id, joinableFor: 3600, now: now).group)
    }

    @Test("A write's statements are prepared once per connection, and a lookup's plan is kept after five runs")
    func preparedOnce() async throws {
        let (store, ada, group) = try await storeWithGroup()
        try await store.client.withConnection { connection in
            // Read back from the server, not from the configuration that asked for it.
            let digits = try await connection.value("SHOW extra_float_digits", as: String.self, logger: Backend.logger)
            #expect(digits == "3")
            for _ in 1...7 {
                #expect(try await PostgresStore.lockGroup(connection, id: group.id, logger: Backend.logger)?.id == group.id)
            }
            // Seven changes of one event each, then two of two and three events.
            for count in [1, 1, 1, 1, 1, 1, 1, 2, 3] {
                let stored = try await PostgresStore.appendEvents(
                    connection, groupId: group.id, Array(repeating: .memberRenamed(playerId: ada.id, name: "Ada \(count)"), count: count),
                    now: now, logger: Backend.logger
                )
                #expect(stored.count == count)
            }
            // pg_prepared_statements counts plans from PostgreSQL 14 on.
            let rows = try await connection.rows("""
                SELECT name, generic_plans, custom_plans FROM pg_prepared_statements
                WHERE name IN (\(Prepared<PostgresStore.LockGroup>.name), \(Prepared<PostgresStore.ApplyEvents>.name))
                """, logger: Backend.logger)
            let plans = try Dictionary(uniqueKeysWithValues: rows.map { (try $0.get(0, as: String.self), (try $0.get(1, as: Int.self), try $0.get(2, as: Int.self))) })
            #expect(plans.count == 2, "each prepared once on this connection")
            let locked = try #require(plans[Prepared<PostgresStore.LockGroup>.name])
            #expect(locked.0 == 2 && locked.1 == 5, "five plans for the values given, then one for any value, used twice")
            // Events alone are written by the statement's smallest shape, nine times here.
            let applied = try #require(plans[Prepared<PostgresStore.ApplyEvents>.name])
            #expect(applied.0 + applied.1 == 9, "\(applied)")
        }
        // Numbered without gaps after the creation's own.
        let seqs = try await store.events(groupId: group.id, after: 0, limit: 100).map(\.seq)
        #expect(seqs == Array(1...seqs.count) && seqs.count >= 12)
    }

    @Test("A statement whose preparation fails does not stay broken: its connection is closed, and the next one prepares it")
    func failedPreparation() async throws {
        let (store, ada, group) = try await storeWithGroup()
        try await store.client.withConnection { blocker in
            // A migration of another instance holds the table while this connection first
            // prepares a statement that reads it, under an operator's lock timeout.
            try await blocker.query("BEGIN", logger: Backend.logger)
            try await blocker.query("LOCK TABLE play_group IN ACCESS EXCLUSIVE MODE", logger: Backend.logger)
            try await store.client.withConnection { connection in
                try await connection.query("SET lock_timeout = '50ms'", logger: Backend.logger)
                await #expect(throws: PSQLError.self) { try await PostgresStore.lockGroup(connection, id: group.id, logger: Backend.logger) }
                #expect(connection.isClosed)
            }
            try await blocker.query("COMMIT", logger: Backend.logger)
        }
        for _ in 0..<4 {
            #expect(try await store.appendEvents(groupId: group.id, [.memberRenamed(playerId: ada.id, name: "Ada")], now: now).count == 1)
        }
    }
}
