import Foundation
import GroupieCore
@testable import GroupieStorage
import Testing

/// A collage recorded or withdrawn is told to its group in the same transaction: no collage is
/// stored without its `collage-ready`, none withdrawn without its `collage-removed`.
@Suite("Collages with their events, on both backends")
struct CollageEventTests {
    let contract = StoreContractTests()

    @Test("saving a collage stores its collage-ready; withdrawing it its collage-removed, once", arguments: Backend.chosen)
    func eventsWithCollages(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (_, _, group) = try await contract.pair(in: store)
        let before = try await store.events(groupId: group.id, after: 0, limit: 100).count
        let record = CollageRecord(
            groupId: group.id, missionId: "a", photoIds: ["p"], key: "k1", width: 1080, height: 1350, createdAt: contract.now
        )
        let saved = try #require(try await store.saveCollage(record, now: contract.now))
        #expect(saved.previousKey == nil)
        #expect(saved.events.map(\.kind) == [.collageReady])
        let removed = try await store.deleteCollage(groupId: group.id, missionId: "a", now: contract.now)
        #expect(removed.map(\.kind) == [.collageRemoved])
        #expect(try await store.deleteCollage(groupId: group.id, missionId: "a", now: contract.now).isEmpty, "nothing left to withdraw")
        let stored = try await store.events(groupId: group.id, after: 0, limit: 100)
        #expect(Array(stored.dropFirst(before)) == saved.events + removed, "the events returned are the ones stored")
        #expect(stored.map(\.seq) == Array(1...stored.count))

        var gone = record
        gone.groupId = "no-such-group"
        #expect(try await store.saveCollage(gone, now: contract.now) == nil)
    }
}
