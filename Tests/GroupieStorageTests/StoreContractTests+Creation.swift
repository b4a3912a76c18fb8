import Foundation
import GroupieCore
@testable import GroupieStorage
import GroupieTestSupport
import Testing

extension StoreContractTests {
    @Test("A creation gives the new group's contents as it committed them: the creator alone, under their stored name", arguments: Backend.chosen)
    func creationContents(_ backend: Backend) async throws {
        let store = try await backend.open()
        let ada = try await player("Ada", in: store)
        // Renamed since the caller read the player: the creation reads the name with its row.
        _ = try await store.updatePlayer(id: ada.id, name: "Ada Lovelace", language: nil, now: now)
        let created = try await store.createGroup(venueId: "v", name: nil, creatorId: ada.id, joinableFor: 3600, now: now)
        let contents = try #require(created.contents)
        #expect(contents.members.map(\.name) == ["Ada Lovelace"])
        #expect(contents.members.map(\.playerId) == [ada.id] && contents.members.map(\.isCreator) == [true])
        #expect(contents.members.map(\.joinedAt) == [now])
        #expect(contents.taskPhotos.photos.isEmpty && contents.collages.isEmpty && contents.claims.isEmpty)
        // What a read of the group gives at version 0.
        let membership = try #require(try await store.membership(playerId: ada.id, groupId: created.group.id))
        #expect(membership.version == 0)
        let read = try await store.groupContents(membership.group)
        #expect(read.members == contents.members)
    }
}
