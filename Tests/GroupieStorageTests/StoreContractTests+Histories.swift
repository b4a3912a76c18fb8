import Foundation
import GroupieCore
@testable import GroupieStorage
import GroupieTestSupport
import Testing

extension StoreContractTests {
    @Test("A group's history names the photo of each photo-added, which the research export counts once", arguments: Backend.chosen)
    func historiesNamePhotos(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (_, bo, group) = try await pair(in: store)
        let added = try await store.addPhoto(photo(group, by: bo, "a", "1"), venue: venue, now: now)
        let photoId = try #require(added.events.first { $0.kind == .photoAdded }.flatMap { Self.photoId(of: $0) })
        let history = try #require(try await store.venueHistories(venueId: group.venueId, after: nil, limit: 10).first { $0.groupId == group.id })
        let photos = history.events.filter { $0.kind == .photoAdded }
        #expect(photos.map(\.photoId) == [photoId])
        #expect(photos.map(\.missionId) == ["a"] && photos.map(\.taskId) == ["1"])
    }

    static func photoId(of event: GroupEvent) -> String? {
        (try? JSONDecoder().decode([String: String].self, from: Data(event.data.utf8)))?["photoId"]
    }
}
