import Foundation
import GroupieCore
@testable import GroupiePostgres
@testable import GroupieSQLite
@testable import GroupieStorage
import Testing

extension StoreContractTests {
    @Test("Table cards make a batch of groups with its label; batches made at the same moment stay apart", arguments: Backend.chosen)
    func groupBatches(_ backend: Backend) async throws {
        let store = try await backend.open()
        let names = (1...10).map { "Table \($0)" }.shuffled()
        let batch = try await store.createGroupBatch(venueId: "v", names: names, label: "Class 4B", joinableFor: 3600, now: now)
        #expect(batch.label == "Class 4B" && batch.createdAt == now)
        #expect(batch.groups.map(\.name) == (1...10).map { "Table \($0)" }, "Table 2 before Table 10")
        #expect(batch.groups.allSatisfy { $0.venueId == "v" && $0.creatorId == nil && $0.joinableUntil == now.addingTimeInterval(3600) })
        // A second class at the same moment, without a label, and groups made one by one.
        let other = try await store.createGroupBatch(venueId: "v", names: ["Table 1", "Table 2"], label: nil, joinableFor: 3600, now: now)
        _ = try await store.createGroupsInAdvance(venueId: "v", names: ["Loose 1", "Loose 2"], joinableFor: 3600, now: now)
        _ = try await store.createGroupBatch(venueId: "w", names: ["Table 1"], label: "Elsewhere", joinableFor: 3600, now: now)

        #expect(other.id != batch.id && other.label == nil)
        #expect(try await store.groupBatch(id: batch.id, venueId: "v") == batch)
        #expect(try await store.groupBatch(id: other.id, venueId: "v") == other)
        #expect(try await store.groupBatch(id: batch.id, venueId: "w") == nil, "a batch belongs to its venue")
        #expect(try await store.groupBatch(id: "no-such-batch", venueId: "v") == nil)
        let listed = try await store.groupBatches(venueId: "v", createdFrom: now.addingTimeInterval(-60), before: now.addingTimeInterval(60))
        #expect(Set(listed.map(\.id)) == [batch.id, other.id], "groups made one by one are no batch")
        #expect(listed.first { $0.id == batch.id } == batch)
        #expect(try await store.groupBatches(venueId: "v", createdFrom: now.addingTimeInterval(1), before: now.addingTimeInterval(60)).isEmpty)
        // Joining a group of the batch keeps it in the batch.
        let bo = try await player("Bo", in: store)
        _ = try await store.joinGroup(code: batch.groups[0].joinCode, playerId: bo.id, now: now.addingTimeInterval(5)) { _ in 5 }
        #expect(try await store.groupBatch(id: batch.id, venueId: "v")?.groups.map(\.id) == batch.groups.map(\.id))
    }

    @Test("A venue's batches travel with its export, from SQLite to PostgreSQL and back")
    func batchesExported() async throws {
        let origin = try #require(try await Backend.sqlite.open() as? SQLiteStore)
        let batch = try await origin.createGroupBatch(venueId: "v", names: ["Table 1", "Table 2"], label: "Class 4B, 09:10", joinableFor: 3600, now: now)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-batches-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try await origin.exportVenue("v", to: folder + "/out.sqlite")
        let postgres = try #require(try await Backend.postgresql.open() as? PostgresStore)
        _ = try await postgres.importRows(from: try SQLiteStore.openExisting(atPath: folder + "/out.sqlite"))
        #expect(try await postgres.groupBatch(id: batch.id, venueId: "v") == batch)
        _ = try await SQLiteStore.exportVenue("v", from: postgres, to: folder + "/back.sqlite")
        let home = try #require(try await Backend.sqlite.open() as? SQLiteStore)
        _ = try await home.importRows(fromFile: folder + "/back.sqlite")
        #expect(try await home.groupBatch(id: batch.id, venueId: "v") == batch)
    }
}
