import Foundation
import GroupieCore
@testable import GroupieStorage
import Testing

extension StoreContractTests {
    @Test("Several groups' events are read at once: each group's after its own number, oldest first, at most the limit of each", arguments: Backend.chosen)
    func eventsOfGroups(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, _, first) = try await pair(in: store)
        let (cy, _, second) = try await pair(in: store)
        for round in 1...3 {
            _ = try await store.appendEvents(groupId: first.id, [.memberRenamed(playerId: ada.id, name: "Ada \(round)")], now: now)
            _ = try await store.appendEvents(groupId: second.id, [.memberRenamed(playerId: cy.id, name: "Cy \(round)")], now: now)
        }
        let firstAll = try await store.events(groupId: first.id, after: 0, limit: 100)
        let secondAll = try await store.events(groupId: second.id, after: 0, limit: 100)
        try #require(firstAll.count >= 4 && secondAll.count >= 4, "a member joined, three renames")

        // Three of the first group's events after its number, one of the second's.
        let firstAfter = firstAll[firstAll.count - 4].seq, secondAfter = secondAll[secondAll.count - 2].seq
        let read = try await store.events(after: [second.id: secondAfter, first.id: firstAfter, "no-such-group": 0], limit: 2)
        // Each group's part is what a read of that group alone gives; the groups in the order of their ids.
        let expected = [first.id, second.id].sorted().flatMap { id in
            id == first.id ? Array(firstAll.filter { $0.seq > firstAfter }.prefix(2)) : Array(secondAll.filter { $0.seq > secondAfter }.prefix(2))
        }
        #expect(read == expected)
        #expect(read.filter { $0.groupId == first.id }.count == 2, "the limit, of the first group's three")
        #expect(read.filter { $0.groupId == second.id }.map(\.seq) == [secondAll.last!.seq])

        // Past the newest: nothing, and nothing asked reads nothing.
        #expect(try await store.events(after: [first.id: firstAll.last!.seq], limit: 10).isEmpty)
        #expect(try await store.events(after: [:], limit: 10).isEmpty)
    }
}
