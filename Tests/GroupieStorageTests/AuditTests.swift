import Foundation
import GroupieCore
@testable import GroupieStorage
import Testing

/// An action of staff and its line of the audit log are one transaction: the log holds every
/// action done, and none that failed.
@Suite("Audit lines with their actions, on both backends")
struct AuditTests {
    let contract = StoreContractTests()

    func entry(_ action: String, subject: String, at second: Double) -> AuditEntry {
        AuditEntry(
            at: contract.now.addingTimeInterval(second), staffEmail: "staff@museum.test", venueId: "v", action: action, subject: subject,
            reason: "because"
        )
    }

    @Test("each action writes its line; an action refused writes none", arguments: Backend.chosen)
    func linesWithActions(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, _, group) = try await contract.pair(in: store)
        let venue = contract.venue
        let added = try await store.addPhoto(contract.photo(group, by: ada, "a", "1"), venue: venue, now: contract.now).photo
        let second = try await store.addPhoto(contract.photo(group, by: ada, "a", "2"), venue: venue, now: contract.now).photo

        _ = try await store.hidePhoto(id: added.id, reason: "because", venue: venue, now: contract.now, audit: entry("photo hidden", subject: added.id, at: 1))
        _ = try await store.restorePhoto(id: added.id, venue: venue, now: contract.now, audit: entry("photo restored", subject: added.id, at: 2))
        _ = try await store.deletePhotoByStaff(id: second.id, venue: venue, now: contract.now, audit: entry("photo deleted", subject: second.id, at: 3))
        _ = try await store.closeGroup(id: group.id, reason: "because", now: contract.now, audit: entry("group closed", subject: group.id, at: 4))
        await #expect(throws: ModerationError.photoNotFound) {
            _ = try await store.hidePhoto(id: "no-such-photo", reason: "because", venue: venue, now: contract.now, audit: entry("photo hidden", subject: "no-such-photo", at: 5))
        }
        await #expect(throws: ModerationError.groupNotFound) {
            _ = try await store.closeGroup(id: "no-such-group", reason: "because", now: contract.now, audit: entry("group closed", subject: "no-such-group", at: 6))
        }
        let log = try await store.auditLog(venueIds: nil, staffEmail: "staff@museum.test", limit: 10)
        #expect(log.map(\.action) == ["group closed", "photo deleted", "photo restored", "photo hidden"])
        #expect(!log.contains { $0.subject?.hasPrefix("no-such") == true })
    }
}
