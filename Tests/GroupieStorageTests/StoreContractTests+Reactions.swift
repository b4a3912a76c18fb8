import Foundation
import GroupieCore
@testable import GroupieStorage
import GroupieTestSupport
import Testing

extension StoreContractTests {
    @Test("A member's reaction to a photo is stored as its event; an entry without reactions, an unknown one and an outsider are refused", arguments: Backend.chosen)
    func reactions(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, bo, group) = try await pair(in: store)
        let added = try await store.addPhoto(photo(group, by: bo, "a", "1"), venue: venue, now: now)
        let photoEntry = try #require(added.events.first { $0.kind == .photoAdded }).seq
        let given = try await store.react(groupId: group.id, entry: photoEntry, reaction: "heart", on: true, playerId: ada.id, now: now)
        #expect(given.map(\.kind) == [.reactionChanged])
        #expect(given.first?.data.contains("\"entry\":\"\(photoEntry)\"") == true)
        let events = try await store.events(groupId: group.id, after: 0, limit: 100)
        #expect(events.last == given.last, "stored with its sequence number")
        let feed = GroupFeed.entries(
            events.map { GroupFeed.Source(seq: $0.seq, kind: $0.kind, fields: (try? JSONDecoder().decode([String: String].self, from: Data($0.data.utf8))) ?? [:]) },
            limit: 10
        )
        #expect(feed.first { $0.id == photoEntry }?.reactions == ["heart": [ada.id]])

        let joined = try #require(events.first { $0.kind == .memberJoined }).seq
        await #expect(throws: ReactionRules.Refusal.notReactable) {
            try await store.react(groupId: group.id, entry: joined, reaction: "heart", on: true, playerId: ada.id, now: self.now)
        }
        await #expect(throws: ReactionRules.Refusal.notReactable) {
            try await store.react(groupId: group.id, entry: 9_999, reaction: "heart", on: true, playerId: ada.id, now: self.now)
        }
        await #expect(throws: ReactionRules.Refusal.unknownReaction) {
            try await store.react(groupId: group.id, entry: photoEntry, reaction: "poo", on: true, playerId: ada.id, now: self.now)
        }
        let outsider = try await player("Cy", in: store)
        await #expect(throws: MembershipError.groupNotFound) {
            try await store.react(groupId: group.id, entry: photoEntry, reaction: "heart", on: true, playerId: outsider.id, now: self.now)
        }
        #expect(try await store.events(groupId: group.id, after: 0, limit: 100).count == events.count, "nothing refused was stored")
    }
}
