import Foundation
import GroupieCore
@testable import GroupiePostgres
@testable import GroupieSQLite
@testable import GroupieStorage
import GroupieTestSupport
import Testing

@Suite("Export and import, either backend to either")
struct ExportBothWaysTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let contract = StoreContractTests()

    /// Two venues' visits in `store`: at `v` a group of Ada and Bo with two photos (one hidden),
    /// at `w` Ada's next group; staff of each venue, one of both, an admin, and audit entries.
    func seed(_ store: some GroupieStore) async throws -> (v: Group, w: Group) {
        let ada = try await contract.player("Ada", in: store), bo = try await contract.player("Bo", in: store)
        let atV = try await store.createGroup(venueId: "v", name: "V", creatorId: ada.id, joinableFor: 3600, now: now).group
        _ = try await store.joinGroup(code: atV.joinCode, playerId: bo.id, now: now.addingTimeInterval(5)) { _ in 5 }
        let first = try await store.addPhoto(contract.photo(atV, by: ada, "a", "1", key: "k"), venue: contract.venue, now: now.addingTimeInterval(60))
        _ = try await store.addPhoto(contract.photo(atV, by: bo, "a", "2"), venue: contract.venue, now: now.addingTimeInterval(125.5))
        _ = try await store.hidePhoto(id: first.photo.id, reason: "blurred", venue: contract.venue, now: now.addingTimeInterval(200))
        let atW = try await store.createGroup(venueId: "w", name: "W", creatorId: ada.id, joinableFor: 3600, now: now.addingTimeInterval(600)).group
        _ = try await store.addStaff(email: "v@museum.org", passwordHash: "h", role: .editor, venueIds: ["v"], now: now)
        _ = try await store.addStaff(email: "w@museum.org", passwordHash: "h", role: .editor, venueIds: ["w"], now: now)
        _ = try await store.addStaff(email: "both@museum.org", passwordHash: "h", role: .moderator, venueIds: ["v", "w"], now: now)
        _ = try await store.addStaff(email: "admin@museum.org", passwordHash: "h", role: .admin, venueIds: [], now: now)
        try await store.audit(AuditEntry(at: now, staffEmail: "v@museum.org", venueId: "v", action: "photo hidden", subject: first.photo.id, reason: "blurred"))
        try await store.audit(AuditEntry(at: now, staffEmail: "w@museum.org", venueId: "w", action: "group closed", subject: atW.id, reason: nil))
        try await store.audit(AuditEntry(at: now, staffEmail: "admin@museum.org", venueId: nil, action: "staff added", subject: "v@museum.org", reason: nil))
        return (atV, atW)
    }

    func newPath() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-export-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder + "/export.sqlite"
    }

    /// What a venue's visit is, as staff and players would see it, in either backend.
    func expectSameVenue(_ group: Group, _ a: some GroupieStore, _ b: some GroupieStore, _ comment: Comment) async throws {
        #expect(try await a.events(groupId: group.id, after: 0, limit: 100) == (try await b.events(groupId: group.id, after: 0, limit: 100)), comment)
        #expect(try await a.visitTally(venueId: group.venueId) == (try await b.visitTally(venueId: group.venueId)), comment)
        #expect(try await a.staffView(groupId: group.id)?.hidden.map(\.reason) == (try await b.staffView(groupId: group.id)?.hidden.map(\.reason)), comment)
        #expect(try await a.auditLog(venueIds: [group.venueId], staffEmail: "", limit: 10) == (try await b.auditLog(venueIds: [group.venueId], staffEmail: "", limit: 10)), comment)
    }

    @Test("A venue's visits export from PostgreSQL as a SQLite file that holds that venue only, read in one snapshot")
    func exportFromPostgres() async throws {
        let source = try #require(try await Backend.postgresql.open() as? PostgresStore)
        let (atV, atW) = try await seed(source)
        let path = try newPath()
        let counts = try await SQLiteStore.exportVenue("v", from: source, to: path)
        #expect(counts == RowCounts(players: 2, groups: 1, memberships: 2, photos: 1))
        let file = try SQLiteStore.openExisting(atPath: path)
        #expect(try await file.storedGroupIds(venue: nil) == [atV.id])
        #expect(try await file.allStaff().map(\.email).sorted() == ["admin@museum.org", "both@museum.org", "v@museum.org"])
        #expect(try await file.allStaff().first { $0.email == "both@museum.org" }?.venueIds == ["v"])
        #expect(try await file.auditLog(venueIds: nil, staffEmail: "", limit: 10).map(\.action) == ["photo hidden"])
        try await expectSameVenue(atV, file, source, "exported from PostgreSQL")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600, "names and token hashes are readable by the owner only")

        await #expect(throws: ExportError.fileExists(path)) { try await SQLiteStore.exportVenue("v", from: source, to: path) }
        let mistyped = try newPath()
        await #expect(throws: ExportError.noGroups("vv")) { try await SQLiteStore.exportVenue("vv", from: source, to: mistyped) }
        #expect(!FileManager.default.fileExists(atPath: mistyped), "no half-made export is left")
        _ = atW
    }

    @Test("A venue's export imports into a SQLite database that holds another venue, once: a second import changes nothing")
    func importIntoSQLite() async throws {
        let source = try #require(try await Backend.sqlite.open() as? SQLiteStore)
        let (atV, atW) = try await seed(source)
        let exportV = try newPath(), exportW = try newPath()
        _ = try await source.exportVenue("v", to: exportV)
        _ = try await source.exportVenue("w", to: exportW)

        let target = try #require(try await Backend.sqlite.open() as? SQLiteStore)
        // The accounts come only as named, each venue's with its export.
        let first = try await target.importRows(fromFile: exportW, filter: ImportFilter(staff: ["w@museum.org", "both@museum.org", "admin@museum.org"]))
        #expect(first.first { $0.table == "play_group" }?.rows == 1)
        let second = try await target.importRows(fromFile: exportV, filter: ImportFilter(staff: ["v@museum.org", "both@museum.org", "admin@museum.org"]))
        #expect(second.first { $0.table == "group_event" }?.rows == (try await source.events(groupId: atV.id, after: 0, limit: 100).count))
        #expect(try await target.counts() == (try await source.counts()))
        #expect(try await target.allStaff() == (try await source.allStaff()), "staff at both venues come once, with both venues")
        for group in [atV, atW] { try await expectSameVenue(group, target, source, "imported into SQLite") }
        let before = try await target.counts()
        await #expect(throws: ImportError.alreadyImported(groups: 1)) { try await target.importRows(fromFile: exportV) }
        #expect(try await target.counts() == before)
        // The group plays on after the import, its events numbered after the imported ones.
        let next = try await target.appendEvents(groupId: atV.id, [.memberRenamed(playerId: try #require(atV.creatorId), name: "Ada B")], now: now)
        #expect(next.first?.seq == (try await source.events(groupId: atV.id, after: 0, limit: 100).last?.seq ?? 0) + 1)
    }

    @Test("From SQLite to PostgreSQL and back, a venue arrives as it left")
    func roundTrip() async throws {
        let origin = try #require(try await Backend.sqlite.open() as? SQLiteStore)
        let (atV, _) = try await seed(origin)
        let out = try newPath(), back = try newPath()
        _ = try await origin.exportVenue("v", to: out)
        let postgres = try #require(try await Backend.postgresql.open() as? PostgresStore)
        let staff = ImportFilter(staff: ["v@museum.org"])
        _ = try await postgres.importRows(from: try SQLiteStore.openExisting(atPath: out), filter: staff)
        _ = try await SQLiteStore.exportVenue("v", from: postgres, to: back)
        let home = try #require(try await Backend.sqlite.open() as? SQLiteStore)
        _ = try await home.importRows(fromFile: back, filter: staff)
        try await expectSameVenue(atV, home, origin, "back in SQLite")
        #expect(try await home.storedGroupIds(venue: nil) == [atV.id])
    }
}
