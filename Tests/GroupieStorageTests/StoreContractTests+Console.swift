import Foundation
import GroupieCore
@testable import GroupieStorage
import Testing

extension StoreContractTests {
    @Test("The numbers count a group once someone joined it; a task undone takes its mission's completion back; the tally is the histories' on both", arguments: Backend.chosen)
    func numbersOfPlay(_ backend: Backend) async throws {
        let store = try await backend.open()
        let tables = try await store.createGroupsInAdvance(venueId: "v", names: ["Table 1", "Table 2"], joinableFor: 3600, now: now)
        var tally = try await store.visitTally(venueId: "v")
        #expect(tally.groupsStarted.isEmpty && tally.photosPerGroup.isEmpty, "groups nobody joined do not count")
        #expect(try await store.venueHistories(venueId: "v", after: nil, limit: 10).map(\.played) == [false, false])

        let (ada, _, group) = try await pair(in: store)
        let cara = try await player("Cara", in: store)
        _ = try await store.joinGroup(code: tables[0].joinCode, playerId: cara.id, now: now.addingTimeInterval(5)) { _ in 5 }
        tally = try await store.visitTally(venueId: "v")
        #expect(tally.groupsStarted.values.reduce(0, +) == 2 && tally.photosPerGroup.filter { $0.value > 0 } == [0: 2])

        _ = try await store.addPhoto(photo(group, by: ada, "a", "1"), venue: venue, now: now.addingTimeInterval(10))
        let second = try await store.addPhoto(photo(group, by: ada, "a", "2"), venue: venue, now: now.addingTimeInterval(20))
        #expect(try await store.visitTally(venueId: "v").missionsCompleted.values.reduce(0, +) == 1)
        let hidden = try await store.hidePhoto(id: second.photo.id, reason: "r", venue: venue, now: now.addingTimeInterval(30))
        #expect(hidden.map(\.kind).contains(.taskUndone))
        tally = try await store.visitTally(venueId: "v")
        #expect(tally.missionsCompleted.values.reduce(0, +) == 0 && tally.missions["a"]?.filter { $0.value > 0 } == [VisitNumbers.Tally.notCompleted: 1])
        _ = try await store.restorePhoto(id: second.photo.id, venue: venue, now: now.addingTimeInterval(40))
        tally = try await store.visitTally(venueId: "v")
        #expect(tally.missionsCompleted.values.reduce(0, +) == 1 && tally.missions["a"]?.filter { $0.value > 0 } == [30: 1], "completed again, 30 s after its start")

        let histories = try await store.venueHistories(venueId: "v", after: nil, limit: 10)
        #expect(histories.map(\.played).sorted { !$0 && $1 } == [false, true, true])
        #expect(tally == VisitNumbers.Tally(histories: histories))
        // Closing and reopening are in the history, for telling groups still playing.
        _ = try await store.closeGroup(id: group.id, reason: "home time", now: now.addingTimeInterval(50))
        let closed = try #require(try await store.venueHistories(venueId: "v", after: nil, limit: 10).first { $0.groupId == group.id })
        #expect(!VisitNumbers.isPlaying(closed, now: now.addingTimeInterval(60)))
    }

    @Test("A closed group is reopened with its event in the same change; reopening an open one changes nothing", arguments: Backend.chosen)
    func reopen(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (_, _, group) = try await pair(in: store)
        #expect(try await store.reopenGroup(id: group.id, now: now, audit: nil).events.isEmpty)
        _ = try await store.closeGroup(id: group.id, reason: "home time", now: now.addingTimeInterval(1))
        let audit = AuditEntry(at: now.addingTimeInterval(2), staffEmail: "mod@museum.org", venueId: "v", action: "group reopened", subject: group.id, reason: nil)
        let reopened = try await store.reopenGroup(id: group.id, now: now.addingTimeInterval(2), audit: audit)
        #expect(reopened.group.closed == nil && reopened.events.map(\.kind) == [.groupReopened])
        #expect(try await store.group(id: group.id)?.closed == nil)
        let events = try await store.events(groupId: group.id, after: 0, limit: 100)
        #expect(events.suffix(2).map(\.kind) == [.groupClosed, .groupReopened] && events.last?.seq == reopened.events.last?.seq)
        #expect(try await store.auditLog(venueIds: nil, staffEmail: "mod@museum.org", limit: 10).map(\.action) == ["group reopened"])
        await #expect(throws: (any Error).self) { try await store.reopenGroup(id: "nope", now: now, audit: nil) }
    }

    @Test("A member of staff's role and venues change; their sign-in lock is lifted at a time the store keeps", arguments: Backend.chosen)
    func staffRoleAndLock(_ backend: Backend) async throws {
        let store = try await backend.open()
        let eva = try await store.addStaff(email: "eva@museum.org", passwordHash: "h", role: .viewer, venueIds: ["v"], now: now)
        let changed = try await store.setStaffRole(email: "eva@museum.org", role: .moderator, venueIds: ["v", "w"])
        #expect(changed.id == eva.id && changed.role == .moderator)
        let moderator = try #require(try await store.allStaff().first)
        #expect(moderator.venueIds == ["v", "w"] && moderator.role == .moderator)
        _ = try await store.setStaffRole(email: "eva@museum.org", role: .admin, venueIds: [])
        let admin = try #require(try await store.allStaff().first)
        #expect(admin.venueIds == [] && admin.role == .admin)
        await #expect(throws: (any Error).self) { try await store.setStaffRole(email: "nobody@museum.org", role: .viewer, venueIds: ["v"]) }

        #expect(try await store.staffUnlockedAt(email: "eva@museum.org") == nil)
        try await store.unlockStaff(email: "eva@museum.org", now: now.addingTimeInterval(7), audit: nil)
        #expect(try await store.staffUnlockedAt(email: "eva@museum.org") == now.addingTimeInterval(7))
        await #expect(throws: (any Error).self) { try await store.unlockStaff(email: "nobody@museum.org", now: now, audit: nil) }
        #expect(try await store.staffUnlockedAt(email: "nobody@museum.org") == nil)
        // A new password lifts the lock too, in the same change.
        try await store.setStaffPassword(email: "eva@museum.org", passwordHash: "h2", now: now.addingTimeInterval(9))
        #expect(try await store.staffUnlockedAt(email: "eva@museum.org") == now.addingTimeInterval(9))
    }

    @Test("Each change of a staff account writes its audit line in its own transaction, and a refused one writes none", arguments: Backend.chosen)
    func accountChangesAudited(_ backend: Backend) async throws {
        let store = try await backend.open()
        func line(_ action: String, _ subject: String) -> AuditEntry {
            AuditEntry(at: now, staffEmail: "admin@museum.org", venueId: nil, action: action, subject: subject, reason: nil)
        }
        func actions() async throws -> [String] {
            try await store.auditLog(venueIds: nil, staffEmail: "admin@museum.org", limit: 50).map(\.action).reversed()
        }
        _ = try await store.addStaff(email: "eva@museum.org", passwordHash: "h", role: .viewer, venueIds: ["v"], now: now, audit: line("staff added", "eva"))
        _ = try await store.setStaffRole(email: "eva@museum.org", role: .moderator, venueIds: ["v"], audit: line("staff role changed", "eva"))
        try await store.setStaffPassword(email: "eva@museum.org", passwordHash: "h2", now: now, audit: line("password reset", "eva"))
        try await store.unlockStaff(email: "eva@museum.org", now: now, audit: line("sign-in lock lifted", "eva"))
        try await store.removeStaff(email: "eva@museum.org", audit: line("staff removed", "eva"))
        let done = ["staff added", "staff role changed", "password reset", "sign-in lock lifted", "staff removed"]
        #expect(try await actions() == done)

        // Refused changes: the account is gone (or taken), and the log holds nothing of them.
        _ = try await store.addStaff(email: "ada@museum.org", passwordHash: "h", role: .viewer, venueIds: ["v"], now: now)
        await #expect(throws: (any Error).self) {
            try await store.addStaff(email: "ada@museum.org", passwordHash: "h", role: .admin, venueIds: [], now: now, audit: line("staff added", "ada"))
        }
        await #expect(throws: (any Error).self) { try await store.removeStaff(email: "eva@museum.org", audit: line("staff removed", "eva")) }
        await #expect(throws: (any Error).self) {
            try await store.setStaffPassword(email: "eva@museum.org", passwordHash: "h3", now: now, audit: line("password reset", "eva"))
        }
        await #expect(throws: (any Error).self) {
            try await store.setStaffRole(email: "eva@museum.org", role: .viewer, venueIds: ["v"], audit: line("staff role changed", "eva"))
        }
        await #expect(throws: (any Error).self) { try await store.unlockStaff(email: "eva@museum.org", now: now, audit: line("sign-in lock lifted", "eva")) }
        #expect(try await actions() == done)
    }
}

extension StoreContractTests {
    @Test("A photo staff restored counts once in the numbers; one held for review counts when shared, hidden while held or not", arguments: Backend.chosen)
    func restoredCountsOnce(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, _, group) = try await pair(in: store)
        let shown = try await store.addPhoto(photo(group, by: ada, "a", "1"), venue: venue, now: now.addingTimeInterval(10))
        _ = try await store.hidePhoto(id: shown.photo.id, reason: "r", venue: venue, now: now.addingTimeInterval(20))
        let restored = try await store.restorePhoto(id: shown.photo.id, venue: venue, now: now.addingTimeInterval(30))
        var reviewed = venue
        reviewed.review = .beforeSharing
        let held = try await store.addPhoto(photo(group, by: ada, "a", "2"), venue: reviewed, now: now.addingTimeInterval(40))
        let shared = try await store.restorePhoto(id: held.photo.id, venue: reviewed, now: now.addingTimeInterval(50))
        let heldThenHidden = try await store.addPhoto(photo(group, by: ada, "b", "1"), venue: reviewed, now: now.addingTimeInterval(60))
        _ = try await store.hidePhoto(id: heldThenHidden.photo.id, reason: "r", venue: reviewed, now: now.addingTimeInterval(70))
        let sharedLater = try await store.restorePhoto(id: heldThenHidden.photo.id, venue: reviewed, now: now.addingTimeInterval(80))

        func flag(_ events: [GroupEvent]) throws -> String? {
            let added = try #require(events.first { $0.kind == .photoAdded })
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(added.data.utf8)) as? [String: Any])
            return fields["restored"] as? String
        }
        #expect(try flag(restored) == "true")
        #expect(try flag(shared) == nil && flag(sharedLater) == nil, "never in the album before")
        let tally = try await store.visitTally(venueId: "v")
        #expect(tally.photosPerGroup.filter { $0.value > 0 } == [3: 1], "three photos, each counted once")
        #expect(tally == VisitNumbers.Tally(histories: try await store.venueHistories(venueId: "v", after: nil, limit: 10)))
    }
}
