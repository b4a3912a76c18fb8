import Foundation
@testable import GroupieServer
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The group's feed and reactions to it, over HTTP, on a real server and SQLite file.
@Suite("The group's feed")
struct GroupFeedRouteTests {
    @Test("The feed shows who joined, photos and claims, newest first; reactions are given, counted once, taken back and told to the group")
    func feedAndReactions() async throws {
        let server = try PhotoRouteTests.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            #expect(try await client.send(.put, "/api/v1/groups/\(group.id)/missions/sharks/tasks/shark/claim", headers: bo.auth).0.status == .noContent)
            let image = try TestImages.solid(width: 300, height: 200, rgb: (1, 100, 1), ext: "jpg")
            let (uploaded, answer) = try await PhotoRouteTests.upload(client, image, as: bo, group: group.id, query: "?mission=sharks&task=shark")
            #expect(uploaded.status == .created)
            let photoId = try #require((answer["photo"] as? [String: Any])?["id"] as? String)

            func feed(as player: TestPlayer) async throws -> [[String: Any]] {
                let (response, body) = try await client.send(.get, "/api/v1/groups/\(group.id)/feed", headers: player.auth)
                #expect(response.status == .ok)
                #expect(body["reactions"] as? [String] == ["heart", "laugh", "wow", "clap", "star"])
                return body["entries"] as? [[String: Any]] ?? []
            }
            let entries = try await feed(as: ada)
            // The mission has one task: the photo completes it.
            #expect(entries.map { $0["kind"] as? String } == ["mission-completed", "photo-added", "task-claimed", "member-joined"])
            #expect(entries[0]["missionId"] as? String == "sharks" && entries[0]["reactable"] as? Bool == true)
            let photo = entries[1]
            #expect(photo["photoId"] as? String == photoId && photo["name"] as? String == "Bo" && photo["reactable"] as? Bool == true)
            #expect((photo["thumbnailUrl"] as? String)?.contains("sig=") == true, "a signed thumbnail")
            let entry = try #require(photo["id"] as? Int)

            let heart = "/api/v1/groups/\(group.id)/feed/\(entry)/reactions/heart"
            #expect(try await client.send(.put, heart, headers: ada.auth).0.status == .noContent)
            #expect(try await client.send(.put, heart, headers: ada.auth).0.status == .noContent, "given again: nothing changes")
            #expect(try await client.send(.put, heart, headers: bo.auth).0.status == .noContent)
            var reactions = try #require(try await feed(as: bo)[1]["reactions"] as? [[String: Any]])
            #expect(reactions.count == 1 && reactions[0]["count"] as? Int == 2 && reactions[0]["mine"] as? Bool == true)
            #expect(Set(reactions[0]["playerIds"] as? [String] ?? []) == [ada.id, bo.id])
            #expect(try await client.send(.delete, heart, headers: bo.auth).0.status == .noContent)
            reactions = try #require(try await feed(as: bo)[1]["reactions"] as? [[String: Any]])
            #expect(reactions.first?["count"] as? Int == 1 && reactions.first?["mine"] as? Bool == false)
            // The collage the completed mission brings is drawn beside the requests: its event is
            // stored once it is ready, and the count below is taken after it.
            try await eventually("the mission's collage ready") {
                try await server.database().events(groupId: group.id, after: 0, limit: 100).contains { $0.kind == .collageReady }
            }
            let kinds = try await server.database().events(groupId: group.id, after: 0, limit: 100).map(\.kind)
            #expect(kinds.filter { $0 == .reactionChanged }.count == 3, "each change is an event the group hears; a heart given again is none")

            // Refusals: a claim takes no reaction, an unknown reaction, a bad id, an outsider.
            let claimEntry = try #require(entries[2]["id"] as? Int)
            let (notReactable, problem) = try await client.send(.put, "/api/v1/groups/\(group.id)/feed/\(claimEntry)/reactions/heart", headers: ada.auth)
            #expect(notReactable.status == .notFound && problem["code"] as? String == "feed-entry-not-found")
            let (unknown, why) = try await client.send(.put, "/api/v1/groups/\(group.id)/feed/\(entry)/reactions/poo", headers: ada.auth)
            #expect(unknown.status == .notFound && why["code"] as? String == "reaction-not-found")
            #expect(try await client.send(.put, "/api/v1/groups/\(group.id)/feed/0/reactions/heart", headers: ada.auth).0.status == .notFound)
            #expect(try await client.send(.put, "/api/v1/groups/\(group.id)/feed/abc/reactions/heart", headers: ada.auth).0.status == .notFound)
            let stranger = try await client.newPlayer("Cy")
            #expect(try await client.send(.put, heart, headers: stranger.auth).0.status == .notFound)
            #expect(try await client.send(.get, "/api/v1/groups/\(group.id)/feed", headers: stranger.auth).0.status == .notFound)
            #expect(try await server.database().events(groupId: group.id, after: 0, limit: 100).count == kinds.count, "refusals store nothing")

            // Erased, Bo's photo leaves the group, and the feed with it.
            #expect(try await client.send(.delete, "/api/v1/me", headers: bo.auth).0.status == .noContent)
            let after = try await feed(as: ada)
            #expect(!after.contains { $0["kind"] as? String == "photo-added" })
            #expect(!after.contains { ($0["name"] as? String) == "Bo" }, "no copy of an erased name")
        }
    }

    @Test("Claims and reactions switched on and off are limited per member and minute, with Retry-After; a refused switch changes nothing")
    func togglesLimited() async throws {
        let server = try PhotoRouteTests.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            let claim = "/api/v1/groups/\(group.id)/missions/sharks/tasks/shark/claim"
            // A photo of no task, for a reaction: the same count holds claims and reactions.
            let image = try TestImages.solid(width: 300, height: 200, rgb: (1, 100, 1), ext: "jpg")
            #expect(try await PhotoRouteTests.upload(client, image, as: bo, group: group.id).0.status == .created)
            let entries = try #require(try await client.send(.get, "/api/v1/groups/\(group.id)/feed", headers: ada.auth).1["entries"] as? [[String: Any]])
            let photoEntry = try #require(entries.first { $0["kind"] as? String == "photo-added" }?["id"] as? Int)
            for index in 0..<ToggleAllowance.perMinute {
                #expect(try await client.send(index.isMultiple(of: 2) ? .put : .delete, claim, headers: ada.auth).0.status == .noContent)
            }
            let before = try await server.database().events(groupId: group.id, after: 0, limit: 500).count
            let (limited, problem) = try await client.send(.put, claim, headers: ada.auth)
            #expect(limited.status == .tooManyRequests && problem["code"] as? String == "too-many-changes")
            #expect(limited.headers[.retryAfter].flatMap { Int($0) }.map { (1...60).contains($0) } == true)
            let (reacted, why) = try await client.send(.put, "/api/v1/groups/\(group.id)/feed/\(photoEntry)/reactions/heart", headers: ada.auth)
            #expect(reacted.status == .tooManyRequests && why["code"] as? String == "too-many-changes", "a reaction counts with the claims")
            #expect(try await server.database().events(groupId: group.id, after: 0, limit: 500).count == before, "the refused claim changed nothing")
            #expect(try await client.send(.put, claim, headers: bo.auth).0.status == .noContent, "each member has a count of their own")
            #expect(try await client.send(.delete, claim, headers: bo.auth).0.status == .noContent)
            // A refusal is no switch: Bo's claim of the task Ada holds does not count against him.
            server.clock.advance(by: 61)
            #expect(try await client.send(.put, claim, headers: ada.auth).0.status == .noContent, "a minute later, Ada may again")
            for _ in 0..<(ToggleAllowance.perMinute + 5) {
                #expect(try await client.send(.put, claim, headers: bo.auth).0.status == .conflict)
            }
            #expect(try await client.send(.delete, claim, headers: ada.auth).0.status == .noContent)
            #expect(try await client.send(.put, claim, headers: bo.auth).0.status == .noContent, "Bo's refused claims were not counted")

            // Many switches sent at once are counted one after another: no more than the limit pass.
            server.clock.advance(by: 61)
            let told = try await server.database().events(groupId: group.id, after: 0, limit: 1000).count
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { tasks in
                for index in 0..<90 {
                    tasks.addTask { try await client.send(index.isMultiple(of: 2) ? .delete : .put, claim, headers: bo.auth).0.status }
                }
                return try await tasks.reduce(into: []) { $0.append($1) }
            }
            let switched = try await server.database().events(groupId: group.id, after: 0, limit: 1000).count - told
            #expect(switched <= ToggleAllowance.perMinute, "\(switched) switches told to the group")
            #expect(statuses.allSatisfy { $0 == .noContent || $0 == .tooManyRequests })
        }
    }
}
