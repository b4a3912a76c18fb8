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

    @Test("A reaction given again, or taken off when it is not on, stores no event; each change stores one", arguments: Backend.chosen)
    func reactionsThatChangeNothing(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, bo, group) = try await pair(in: store)
        let added = try await store.addPhoto(photo(group, by: bo, "a", "1"), venue: venue, now: now)
        let entry = try #require(added.events.first { $0.kind == .photoAdded }).seq
        func react(_ reaction: String, _ on: Bool, by player: Player) async throws -> Int {
            try await store.react(groupId: group.id, entry: entry, reaction: reaction, on: on, playerId: player.id, now: now).count
        }
        #expect(try await react("heart", false, by: ada) == 0, "never given")
        #expect(try await react("heart", true, by: ada) == 1)
        #expect(try await react("heart", true, by: ada) == 0, "given again")
        #expect(try await react("heart", true, by: bo) == 1, "another member's is their own")
        #expect(try await react("clap", true, by: ada) == 1, "another reaction is its own")
        #expect(try await react("heart", false, by: ada) == 1)
        #expect(try await react("heart", false, by: ada) == 0, "taken off again")
        #expect(try await react("heart", true, by: ada) == 1, "given once more")
        // Another entry's reaction is its own: a heart on this one says nothing of the other's.
        let other = try await store.addPhoto(photo(group, by: bo, "a", "2"), venue: venue, now: now)
        let otherEntry = try #require(other.events.first { $0.kind == .photoAdded }).seq
        #expect(try await store.react(groupId: group.id, entry: otherEntry, reaction: "heart", on: true, playerId: ada.id, now: now).count == 1)
        #expect(try await store.react(groupId: group.id, entry: otherEntry, reaction: "heart", on: false, playerId: bo.id, now: now).isEmpty)
        let stored = try await store.events(groupId: group.id, after: entry, limit: 100).filter { $0.kind == .reactionChanged }
        #expect(stored.count == 6)
    }
}
