import Foundation
import GroupieCore
@testable import GroupieStorage
import Testing

/// A message from staff is an event of each group it reaches, committed with its audit line.
@Suite("Messages from staff, on both backends")
struct StaffMessageStoreTests {
    let contract = StoreContractTests()

    func audit(_ action: String) -> AuditEntry {
        AuditEntry(at: contract.now, staffEmail: "staff@museum.test", venueId: "v", action: action, subject: nil, reason: "We close soon")
    }

    func messages(_ store: any GroupieStore, _ groupId: String) async throws -> [GroupEvent] {
        try await store.events(groupId: groupId, after: 0, limit: 100).filter { $0.kind == .staffMessage }
    }

    @Test("to one group, or to every open group of the venue that someone is in; counted per group", arguments: Backend.chosen)
    func sent(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (_, _, group) = try await contract.pair(in: store)
        let cy = try await contract.player("Cy", in: store), di = try await contract.player("Di", in: store)
        let eve = try await contract.player("Eve", in: store)
        let second = try await store.createGroup(venueId: "v", name: "Second", creatorId: cy.id, joinableFor: 3600, now: contract.now).group
        let closed = try await store.createGroup(venueId: "v", name: "Closed", creatorId: di.id, joinableFor: 3600, now: contract.now).group
        _ = try await store.closeGroup(id: closed.id, reason: "done", now: contract.now)
        let elsewhere = try await store.createGroup(venueId: "w", name: "Elsewhere", creatorId: eve.id, joinableFor: 3600, now: contract.now).group

        let one = try await store.sendStaffMessage("Shark tunnel closed", venueId: "v", groupId: group.id, now: contract.now, audit: audit("to one"))
        #expect(one.map(\.groupId) == [group.id])
        #expect(one.first?.kind == .staffMessage && one.first?.data == #"{"text":"Shark tunnel closed"}"#)
        #expect(try await messages(store, group.id) == one, "stored as the group's event, with its number")

        let every = try await store.sendStaffMessage("We close soon", venueId: "v", groupId: nil, now: contract.now, audit: audit("to every"))
        #expect(Set(every.map(\.groupId)) == [group.id, second.id])
        #expect(try await messages(store, closed.id).isEmpty)
        #expect(try await messages(store, elsewhere.id).isEmpty)
        #expect(try await store.staffMessageCount(venueId: "v") == 3)
        #expect(try await store.staffMessageCount(venueId: "w") == 0)
        #expect(try await store.auditLog(venueIds: nil, staffEmail: "", limit: 10).map(\.action) == ["to every", "to one"])
    }

    @Test("a group of another venue, or none, is refused: no event and no audit line", arguments: Backend.chosen)
    func refused(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (_, _, group) = try await contract.pair(in: store)
        await #expect(throws: ModerationError.groupNotFound) {
            _ = try await store.sendStaffMessage("Hello", venueId: "w", groupId: group.id, now: contract.now, audit: audit("to one"))
        }
        await #expect(throws: ModerationError.groupNotFound) {
            _ = try await store.sendStaffMessage("Hello", venueId: "v", groupId: "no-such-group", now: contract.now, audit: audit("to one"))
        }
        #expect(try await messages(store, group.id).isEmpty)
        #expect(try await store.staffMessageCount(venueId: "v") == 0)
        #expect(try await store.auditLog(venueIds: nil, staffEmail: "", limit: 10).isEmpty)
    }
}
