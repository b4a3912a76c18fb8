import Foundation
import GroupieCore
@testable import GroupieStorage
import GroupieTestSupport
import Testing

extension StoreContractTests {
    /// What a member sees of the contents, to compare two readings.
    struct SeenContents: Equatable {
        var members: [Member], claims: [TaskClaim], collages: [CollageRecord]
        var photos: [GroupProgress.TaskKey: [Photo]], chosen: [GroupProgress.TaskKey: Photo]
        var answered: Set<GroupProgress.TaskKey>, missionStarts: [String: Date]

        init(_ contents: GroupContents) {
            members = contents.members
            claims = contents.claims
            collages = contents.collages
            photos = contents.taskPhotos.photos
            chosen = contents.taskPhotos.chosen
            answered = contents.taskPhotos.answered
            missionStarts = contents.taskPhotos.missionStarts
        }
    }

    @Test("The contents a join hands back are those a read after it finds: members, creator, photos, claims; a returning member's old claim is gone", arguments: Backend.chosen)
    func joinContents(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, bo, group) = try await pair(in: store)
        _ = try await store.addPhoto(photo(group, by: ada, "a", "1"), venue: venue, now: now)
        // Ada and Bo each claim a task; Bo starts a group of his own (leaving Ada's, which ends
        // his claim) and comes back: Ada's claim shows, his does not.
        _ = try await store.claimTask(groupId: group.id, task: .init(missionId: "a", taskId: "2"), by: ada, venue: venue, now: now)
        _ = try await store.claimTask(groupId: group.id, task: .init(missionId: "b", taskId: "1"), by: bo, venue: venue, now: now)
        _ = try await store.createGroup(venueId: "v", name: nil, creatorId: bo.id, joinableFor: 3600, now: now.addingTimeInterval(1))
        #expect(try await store.groupContents(group).claims.map(\.playerId) == [ada.id])
        let back = try await store.joinGroup(code: group.joinCode, playerId: bo.id, now: now.addingTimeInterval(2)) { _ in 5 }
        // A group made in advance has no creator: its first member takes the role.
        let advance = try #require(try await store.createGroupsInAdvance(venueId: "v", names: ["Table 1"], joinableFor: 3600, now: now).first)
        let cy = try await player("Cy", in: store)
        let first = try await store.joinGroup(code: advance.joinCode, playerId: cy.id, now: now.addingTimeInterval(3)) { _ in 5 }

        for (join, name) in [(back, "Bo's return"), (first, "Cy's join")] {
            let membership = try #require(join.membership, "\(name)")
            // Read back from the store: its group as stored (its creator too), at the join's version.
            let stored = try #require(try await store.membership(playerId: membership.group.creatorId ?? "", groupId: membership.group.id))
            #expect(stored.version == membership.version, "\(name)")
            let read = SeenContents(try await store.groupContents(stored.group))
            // PostgreSQL reads them with the join; SQLite leaves them to the read after it.
            if backend == .postgresql {
                #expect(SeenContents(try #require(join.contents, "\(name)")) == read, "\(name)")
            } else {
                #expect(join.contents == nil)
            }
        }
        let returned = SeenContents(try await store.groupContents(try #require(back.membership).group))
        #expect(returned.members.map(\.name) == ["Ada", "Bo"])
        #expect(returned.claims.map(\.playerId) == [ada.id])
        #expect(returned.photos.values.joined().count == 1)
        let advanced = SeenContents(try await store.groupContents(try #require(first.membership).group))
        #expect(advanced.members == [Member(playerId: cy.id, name: "Cy", joinedAt: now.addingTimeInterval(3), isCreator: true)])
    }

    @Test("A group's member count is its contents' members: after joins and a leave; none for a group unknown", arguments: Backend.chosen)
    func memberCount(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, bo, group) = try await pair(in: store)
        #expect(try await store.memberCount(groupId: group.id) == 2)
        let cy = try await player("Cy", in: store)
        _ = try await store.joinGroup(code: group.joinCode, playerId: cy.id, now: now) { _ in 5 }
        _ = try await store.removeMember(groupId: group.id, playerId: bo.id, by: bo.id, now: now)
        #expect(try await store.memberCount(groupId: group.id) == 2)
        #expect(try await store.groupContents(group).members.map(\.playerId).sorted() == [ada.id, cy.id].sorted())
        // A group Bo makes of his own: he is its one member.
        let own = try await store.createGroup(venueId: "v", name: nil, creatorId: bo.id, joinableFor: 3600, now: now).group
        #expect(try await store.memberCount(groupId: own.id) == 1)
        #expect(try await store.memberCount(groupId: "no-such-group") == 0)
    }
}
