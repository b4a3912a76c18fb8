import Foundation
import GroupieCore
@testable import GroupiePostgres
@testable import GroupieSQLite
@testable import GroupieStorage
import GroupieTestSupport
import PostgresNIO
import Testing

/// What the server asks of storage, checked on SQLite and on PostgreSQL alike: each test runs
/// once per backend, on a new store.
@Suite("The storage contract, on both backends")
struct StoreContractTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Mission `a` (tasks 1 and 2), then `b` (task 1).
    let venue = Venue(
        id: "v", name: .plain("V"), languages: ["en"], description: nil, timeZone: "UTC", theme: Theme(color: "#000000", logo: nil),
        rules: VenueRules(),
        missions: [
            Mission(id: "a", title: .plain("A"), icon: "i.svg", after: [], tasks: [MissionTask(id: "1", prompt: .plain("p")), MissionTask(id: "2", prompt: .plain("p"))]),
            Mission(id: "b", title: .plain("B"), icon: "i.svg", after: [], tasks: [MissionTask(id: "1", prompt: .plain("p"))]),
        ]
    )

    func player(_ name: String, in store: any GroupieStore) async throws -> Player {
        try await store.createPlayer(name: name, language: "en", tokenHash: Data(UUID().uuidString.utf8), now: now)
    }

    /// Ada's group with Bo in it.
    func pair(in store: any GroupieStore) async throws -> (ada: Player, bo: Player, group: Group) {
        let ada = try await player("Ada", in: store), bo = try await player("Bo", in: store)
        let group = try await store.createGroup(venueId: "v", name: nil, creatorId: ada.id, joinableFor: 3600, now: now).group
        _ = try await store.joinGroup(code: group.joinCode, playerId: bo.id, now: now) { _ in 5 }
        return (ada, bo, group)
    }

    /// A new photo's blob name as the server makes them: 64 hex digits.
    static func newBlob() -> String {
        (UUID().uuidString + UUID().uuidString).replacingOccurrences(of: "-", with: "").lowercased()
    }

    func photo(_ group: Group, by player: Player, _ mission: String?, _ task: String?, key: String? = nil, blob: String? = nil) -> NewPhoto {
        NewPhoto(
            groupId: group.id, photographerId: player.id, missionId: mission, taskId: task, blob: blob ?? Self.newBlob(), format: "jpeg",
            width: 400, height: 300, idempotencyKey: key
        )
    }

    @Test("Many joiners at once fill a group to its cap and no further", arguments: Backend.chosen)
    func concurrentJoiners(_ backend: Backend) async throws {
        let store = try await backend.open()
        let creator = try await player("Creator", in: store)
        let group = try await store.createGroup(venueId: "v", name: "G", creatorId: creator.id, joinableFor: 3600, now: now).group
        var joiners: [Player] = []
        for index in 0..<12 { joiners.append(try await player("Joiner \(index)", in: store)) }
        let joined = await withTaskGroup(of: Bool.self) { tasks in
            for joiner in joiners {
                tasks.addTask { (try? await store.joinGroup(code: group.joinCode, playerId: joiner.id, now: now) { _ in 5 }) != nil }
            }
            return await tasks.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(joined == 4)
        #expect(try await store.groupContents(group).members.count == 5)
        #expect(try await store.counts().memberships == 5)
    }

    @Test("A group's contents and its collage subject give back every field as stored, to the fraction of a second", arguments: Backend.chosen)
    func contentsReadBack(_ backend: Backend) async throws {
        let store = try await backend.open()
        let ada = try await player("Ada", in: store), bo = try await player("Bö \"Quote\" 🐟", in: store)
        let group = try await store.createGroup(venueId: "v", name: "G", creatorId: ada.id, joinableFor: 3600, now: now.addingTimeInterval(0.125)).group
        _ = try await store.joinGroup(code: group.joinCode, playerId: bo.id, now: now.addingTimeInterval(1.000_001)) { _ in 5 }
        let added = try await store.addPhoto(photo(group, by: bo, "a", "1"), venue: venue, now: now.addingTimeInterval(2.333_333_3)).photo
        try await store.setFocus(photoId: added.id, Focus(x: 0.1, y: 0.987_654_321))
        let second = try await store.addPhoto(photo(group, by: ada, "a", "1"), venue: venue, now: now.addingTimeInterval(3)).photo
        let member = try #require(try await store.player(id: bo.id))
        _ = try await store.choosePhoto(groupId: group.id, task: GroupProgress.TaskKey(missionId: "a", taskId: "1"), photoId: second.id, by: member, venue: venue, now: now)
        let record = CollageRecord(groupId: group.id, missionId: "a", photoIds: [second.id, added.id], key: "k", width: 1080, height: 1350, createdAt: now.addingTimeInterval(4.2))
        _ = try await store.saveCollage(record)
        var focused = added
        focused.focus = Focus(x: 0.1, y: 0.987_654_321)

        let contents = try await store.groupContents(group)
        #expect(contents.members.map(\.playerId) == [ada.id, bo.id])
        #expect(contents.members.map(\.name) == ["Ada", "Bö \"Quote\" 🐟"])
        #expect(contents.members.map(\.joinedAt) == [now.addingTimeInterval(0.125), now.addingTimeInterval(1.000_001)])
        #expect(contents.members.map(\.isCreator) == [true, false])
        #expect(Set(contents.taskPhotos.photos.values.joined()) == [focused, second])
        #expect(contents.taskPhotos.picks == [GroupProgress.TaskKey(missionId: "a", taskId: "1"): second.id])
        #expect(contents.collages == [record])

        let subject = try #require(try await store.collageSubject(groupId: group.id))
        #expect(subject.group == group)
        #expect(subject.creatorLanguage == "en")
        #expect(Set(subject.taskPhotos.photos.values.joined()) == [focused, second])
        #expect(subject.taskPhotos.picks == contents.taskPhotos.picks)
        #expect(subject.collages == [record])
        #expect(try await store.taskPhotos(groupId: group.id).picks == contents.taskPhotos.picks)
        #expect(try await store.collageSubject(groupId: "no-such-group") == nil)
    }

    @Test("An upload retried with its key gives the first photo back and adds nothing; the key for another task is refused", arguments: Backend.chosen)
    func idempotentUploads(_ backend: Backend) async throws {
        let store = try await backend.open()
        let ada = try await player("Ada", in: store)
        let group = try await store.createGroup(venueId: "v", name: nil, creatorId: ada.id, joinableFor: 3600, now: now).group
        let first = try await store.addPhoto(photo(group, by: ada, "a", "1", key: "k1"), venue: venue, now: now)
        #expect(first.created && !first.held)
        let retries = try await withThrowingTaskGroup(of: Bool.self) { tasks in
            for _ in 0..<4 {
                tasks.addTask { try await store.addPhoto(self.photo(group, by: ada, "a", "1", key: "k1"), venue: self.venue, now: self.now).photo.id == first.photo.id }
            }
            return try await tasks.reduce(true) { $0 && $1 }
        }
        #expect(retries)
        #expect(try await store.counts().photos == 1)
        #expect(try await store.uploadedPhoto(playerId: ada.id, groupId: group.id, key: "k1", now: now)?.photo.id == first.photo.id)
        await #expect(throws: PhotoError.keyReused) {
            try await store.addPhoto(photo(group, by: ada, "a", "2", key: "k1"), venue: venue, now: now)
        }
        // A day later the key is forgotten.
        #expect(try await store.forgetExpiredUploadKeys(now: now.addingTimeInterval(SQLiteStore.idempotencyKeyLifetime + 1)) == 1)
        #expect(try await store.uploadedPhoto(playerId: ada.id, groupId: group.id, key: "k1", now: now) == nil)
    }

    @Test("Photos make progress and events in one sequence: task done, mission completed, choices", arguments: Backend.chosen)
    func progressAndChoices(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, bo, group) = try await pair(in: store)
        let one = try await store.addPhoto(photo(group, by: ada, "a", "1"), venue: venue, now: now)
        #expect(one.events.map(\.kind) == [.photoAdded, .taskDone])
        let other = try await store.addPhoto(photo(group, by: bo, "a", "1"), venue: venue, now: now.addingTimeInterval(1))
        #expect(other.events.map(\.kind) == [.photoAdded])
        let two = try await store.addPhoto(photo(group, by: bo, "a", "2"), venue: venue, now: now.addingTimeInterval(2))
        #expect(two.events.map(\.kind) == [.photoAdded, .taskDone, .missionCompleted])
        let task = GroupProgress.TaskKey(missionId: "a", taskId: "1")
        #expect(try await store.taskPhotos(groupId: group.id).chosen[task]?.id == one.photo.id)
        let chosen = try await store.choosePhoto(groupId: group.id, task: task, photoId: other.photo.id, by: bo, venue: venue, now: now.addingTimeInterval(3))
        #expect(chosen.events.map(\.kind) == [.choiceChanged])
        #expect(chosen.touchesCollage, "mission a is complete")
        #expect(try await store.taskPhotos(groupId: group.id).chosen[task]?.id == other.photo.id)
        let events = try await store.events(groupId: group.id, after: 0, limit: 100)
        #expect(events.map(\.seq) == Array(1...events.count))
        #expect(try await store.membership(playerId: ada.id, groupId: group.id)?.version == events.last?.seq)
        // Newest first, paged.
        let page = try await store.photos(groupId: group.id, missionId: "a", before: nil, limit: 2)
        #expect(page.map(\.id) == [two.photo.id, other.photo.id])
        #expect(try await store.photos(groupId: group.id, missionId: nil, before: other.photo.id, limit: 5).map(\.id) == [one.photo.id])
        // Deleting the chosen photo undoes nothing the other photo still does.
        let removed = try await store.deletePhoto(id: other.photo.id, by: bo.id, venue: venue, now: now.addingTimeInterval(4))
        #expect(removed.blobUnused)
        #expect(try await store.taskPhotos(groupId: group.id).chosen[task]?.id == one.photo.id)
    }

    @Test("Concurrent changes of one group number its events without gaps or repeats", arguments: Backend.chosen)
    func gaplessSequence(_ backend: Backend) async throws {
        let store = try await backend.open()
        var members: [Player] = []
        for index in 0..<4 { members.append(try await player("M\(index)", in: store)) }
        let group = try await store.createGroup(venueId: "v", name: nil, creatorId: members[0].id, joinableFor: 3600, now: now).group
        for member in members.dropFirst() { _ = try await store.joinGroup(code: group.joinCode, playerId: member.id, now: now) { _ in 9 } }
        let returned = try await withThrowingTaskGroup(of: [Int].self) { tasks in
            for (index, member) in members.enumerated() {
                tasks.addTask {
                    var seqs: [Int] = []
                    for round in 0..<10 {
                        if round % 2 == 0 {
                            seqs += try await store.addPhoto(self.photo(group, by: member, index % 2 == 0 ? "a" : "b", "1"), venue: self.venue, now: self.now).events.map(\.seq)
                        } else {
                            seqs += try await store.appendEvents(groupId: group.id, [.memberRenamed(playerId: member.id, name: "M\(index)-\(round)")], now: self.now).map(\.seq)
                        }
                    }
                    return seqs
                }
            }
            return try await tasks.reduce(into: [Int]()) { $0 += $1 }
        }
        let stored = try await store.events(groupId: group.id, after: 0, limit: 1000).map(\.seq)
        #expect(stored == Array(1...stored.count))
        #expect(Set(returned).count == returned.count, "no sequence number handed out twice")
        #expect(Set(returned).isSubset(of: Set(stored)))
    }

    @Test("Retention deletes old groups with their photos, events and tally, and names the blobs left unused", arguments: Backend.chosen)
    func retention(_ backend: Backend) async throws {
        let store = try await backend.open()
        let old = try await player("Old", in: store), new = try await player("New", in: store)
        let oldGroup = try await store.createGroup(venueId: "v", name: nil, creatorId: old.id, joinableFor: 3600, now: now).group
        let newGroup = try await store.createGroup(venueId: "v", name: nil, creatorId: new.id, joinableFor: 3600, now: now.addingTimeInterval(86_400)).group
        _ = try await store.addPhoto(photo(oldGroup, by: old, "a", "1", blob: "shared"), venue: venue, now: now)
        _ = try await store.addPhoto(photo(oldGroup, by: old, "a", "2", blob: "only-old"), venue: venue, now: now)
        _ = try await store.addPhoto(photo(newGroup, by: new, "a", "1", blob: "shared"), venue: venue, now: now.addingTimeInterval(86_400))
        let before = try await store.visitTally(venueId: "v")
        #expect(before.missionsCompleted.values.reduce(0, +) == 1)
        let swept = try await store.deleteGroups(createdBefore: now.addingTimeInterval(3600))
        #expect(swept.groups == 1)
        #expect(swept.unusedBlobs == ["only-old"])
        #expect(try await store.group(id: oldGroup.id) == nil)
        #expect(try await store.events(groupId: oldGroup.id, after: 0, limit: 10).isEmpty)
        #expect(try await store.isBlobUsed("shared"))
        let after = try await store.visitTally(venueId: "v")
        #expect(after == VisitNumbers.Tally(histories: try await store.venueHistories(venueId: "v")))
        #expect(after.missionsCompleted.values.reduce(0, +) == 0)
        #expect(after.groupsStarted.values.reduce(0, +) == 1)
    }

    @Test("Erasure takes the player, their photos and every copy of their name in stored events", arguments: Backend.chosen)
    func erasure(_ backend: Backend) async throws {
        let store = try await backend.open()
        let ada = try await player("Ada Lovelace", in: store), bo = try await player("Bo", in: store)
        let group = try await store.createGroup(venueId: "v", name: nil, creatorId: ada.id, joinableFor: 3600, now: now).group
        _ = try await store.joinGroup(code: group.joinCode, playerId: bo.id, now: now) { _ in 5 }
        _ = try await store.appendEvents(groupId: group.id, [.memberJoined(playerId: ada.id, name: ada.name)], now: now)
        let added = try await store.addPhoto(photo(group, by: ada, "a", "1", blob: "ada-photo"), venue: venue, now: now)
        let before = try await store.events(groupId: group.id, after: 0, limit: 100)
        let erasure = try await store.erasePlayer(id: ada.id, now: now.addingTimeInterval(1)) { [venue] _ in venue }
        #expect(erasure.unusedBlobs == ["ada-photo"])
        #expect(erasure.groupsWithPhotos == [group.id])
        // In the same transaction, the group is told: the photo went (and its task with it), then Ada.
        #expect(erasure.events.map(\.kind) == [.photoRemoved, .taskUndone, .memberLeft])
        #expect(erasure.events.map(\.seq) == Array((before.count + 1)...(before.count + 3)))
        #expect(try await store.events(groupId: group.id, after: before.count, limit: 100) == erasure.events)
        #expect(try await store.taskPhotos(groupId: group.id).chosen.isEmpty)
        #expect(try await store.player(id: ada.id) == nil)
        #expect(try await store.photo(id: added.photo.id) == nil)
        let stored = try await store.events(groupId: group.id, after: 0, limit: 100)
        #expect(!stored.isEmpty)
        #expect(stored.allSatisfy { !$0.data.contains("Lovelace") })
        // An event about the erased player written afterwards keeps no name either.
        let late = try await store.appendEvents(groupId: group.id, [.memberRenamed(playerId: ada.id, name: "Ada Lovelace")], now: now.addingTimeInterval(2))
        #expect(!late[0].data.contains("Lovelace"), "the event as published live keeps no name either")
        #expect(try await store.events(groupId: group.id, after: late[0].seq - 1, limit: 1).allSatisfy { !$0.data.contains("Lovelace") })
        #expect(try await store.groupContents(try #require(try await store.group(id: group.id))).members.filter(\.isCreator).map(\.name) == ["Bo"])
    }

    @Test("Rate-limit failures count within their window, per key", arguments: Backend.chosen)
    func rateLimitState(_ backend: Backend) async throws {
        let store = try await backend.open()
        for second in [0.0, 10, 20] { try await store.recordFailure(of: "join-address:10.0.0.1", now: now.addingTimeInterval(second), window: 60) }
        try await store.recordFailure(of: "join-address:10.0.0.2", now: now, window: 60)
        #expect(try await store.failures(of: "join-address:10.0.0.1", within: 60, now: now.addingTimeInterval(30)).count == 3)
        #expect(try await store.failures(of: "join-address:10.0.0.1", within: 60, now: now.addingTimeInterval(65)) == [now.addingTimeInterval(10), now.addingTimeInterval(20)])
        #expect(try await store.failures(of: "join-address:10.0.0.3", within: 60, now: now).isEmpty)
    }

    @Test("An exclusive job runs, and runs again once the first is done", arguments: Backend.chosen)
    func exclusiveJobs(_ backend: Backend) async throws {
        let store = try await backend.open()
        #expect(try await store.exclusively("retention") { 42 } == 42)
        #expect(try await store.exclusively("retention") { "again" } == "again")
        await #expect(throws: PhotoError.keyReused) { try await store.exclusively("retention") { throw PhotoError.keyReused } }
        #expect(try await store.exclusively("retention") { true } == true, "a job that failed lets the next run")
    }

    @Test("Events committed by one instance are announced to the others; a job one instance holds is skipped by the others", arguments: Backend.chosen)
    func severalInstances(_ backend: Backend) async throws {
        let (first, second) = try await backend.openTwo()
        guard let announcements = second.eventAnnouncements() else {
            // SQLite: the process is the only writer and hands its events to its streams itself.
            #expect(backend == .sqlite)
            return
        }
        var iterator = announcements.makeAsyncIterator()
        #expect(await iterator.next() == .resumed, "listening starts by saying that earlier events may have been missed")
        let ada = try await player("Ada", in: first)
        let group = try await first.createGroup(venueId: "v", name: nil, creatorId: ada.id, joinableFor: 3600, now: now).group
        let added = try await first.addPhoto(photo(group, by: ada, "a", "1"), venue: venue, now: now)
        // Announced after each commit: the group's creation, then the photo (or both at once).
        let newest = try #require(added.events.last).seq
        var announced = 0
        while announced < newest, case .committed(group.id, let seq)? = await iterator.next() { announced = seq }
        #expect(announced == newest)
        let stored = try await second.events(groupId: group.id, after: 0, limit: 10)
        #expect(stored == added.events, "the other instance reads the announced events from the table")

        let (holding, release) = AsyncStream.makeStream(of: Void.self)
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let held = Task {
            try await first.exclusively("retention") {
                start.finish()
                for await _ in holding {}
            }
        }
        for await _ in started {}
        #expect(try await second.exclusively("retention") { true } == nil, "the second instance skips a job the first holds")
        release.finish()
        #expect(try await held.value != nil)
        #expect(try await second.exclusively("retention") { true } == true, "and runs it once the first is done")
    }

    @Test("Staff accounts, sessions and the audit log", arguments: Backend.chosen)
    func staff(_ backend: Backend) async throws {
        let store = try await backend.open()
        let member = try await store.addStaff(email: "a@museum.org", passwordHash: "h1", role: .moderator, venueIds: ["v", "w"], now: now)
        await #expect(throws: StaffError.emailTaken) {
            try await store.addStaff(email: "a@museum.org", passwordHash: "h2", role: .admin, venueIds: [], now: now)
        }
        #expect(try await store.staffCredentials(email: "a@museum.org")?.member == member)
        try await store.startStaffSession(staffId: member.id, tokenHash: Data([1, 2, 3]), csrfToken: "csrf", now: now, lifetime: 60)
        #expect(try await store.staffSession(tokenHash: Data([1, 2, 3]), now: now)?.csrfToken == "csrf")
        #expect(try await store.staffSession(tokenHash: Data([1, 2, 3]), now: now.addingTimeInterval(61)) == nil)
        try await store.audit(AuditEntry(at: now, staffEmail: "a@museum.org", venueId: "v", action: "photo hidden", subject: "p", reason: "r"))
        try await store.audit(AuditEntry(at: now, staffEmail: "b@museum.org", venueId: "x", action: "group closed", subject: nil, reason: nil))
        #expect(try await store.auditLog(venueIds: ["v"], staffEmail: "a@museum.org", limit: 10).map(\.action) == ["photo hidden"])
        #expect(try await store.auditLog(venueIds: nil, staffEmail: "a@museum.org", limit: 10).map(\.action) == ["group closed", "photo hidden"])
        try await store.setStaffPassword(email: "a@museum.org", passwordHash: "h3")
        #expect(try await store.staffSession(tokenHash: Data([1, 2, 3]), now: now) == nil, "a new password ends the sessions")
        try await store.removeStaff(email: "a@museum.org")
        await #expect(throws: StaffError.unknownStaff) { try await store.removeStaff(email: "a@museum.org") }
    }

    @Test("Hidden, held and restored photos move between the album and staff's view", arguments: Backend.chosen)
    func moderation(_ backend: Backend) async throws {
        let store = try await backend.open()
        let ada = try await player("Ada", in: store)
        let group = try await store.createGroup(venueId: "v", name: nil, creatorId: ada.id, joinableFor: 3600, now: now).group
        let shown = try await store.addPhoto(photo(group, by: ada, "a", "1"), venue: venue, now: now)
        #expect(try await store.hidePhoto(id: shown.photo.id, reason: "blurry face", venue: venue, now: now).map(\.kind) == [.photoRemoved, .taskUndone])
        #expect(try await store.photo(id: shown.photo.id) == nil)
        #expect(try await store.moderatedPhoto(id: shown.photo.id)?.hidden == true)
        #expect(try await store.restorePhoto(id: shown.photo.id, venue: venue, now: now).map(\.kind) == [.photoAdded, .taskDone])
        var reviewed = venue
        reviewed.review = .beforeSharing
        let held = try await store.addPhoto(photo(group, by: ada, "a", "2"), venue: reviewed, now: now)
        #expect(held.held && held.events.isEmpty)
        #expect(try await store.heldPhotos(venueId: "v", limit: 10).total == 1)
        #expect(try await store.heldPhotos(groupId: group.id, photographerId: ada.id).map(\.id) == [held.photo.id])
        #expect(try await store.staffView(groupId: group.id)?.hidden.map(\.held) == [true])
        let closed = try await store.closeGroup(id: group.id, reason: "closing time", now: now)
        #expect(closed.events.map(\.kind) == [.groupClosed])
        await #expect(throws: MembershipError.groupClosed(Group.Closure(at: now, reason: "closing time"))) {
            try await store.addPhoto(photo(group, by: ada, "b", "1"), venue: venue, now: now)
        }
    }
}
