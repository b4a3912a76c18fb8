import Foundation
import GroupieCore
@testable import GroupieServer
import GroupieStorage
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("The staff's photo feed")
struct StaffFeedTests {
    @Test("The feed shows a venue's photos with group, code, task and venue time; filters by mission, group code or name and day; pages by 60; another venue's staff get 404")
    func feed() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        try server.write("museum.yaml", TestServer.aquarium(id: "museum"))
        try await StaffConsoleTests.addStaff(server, "viewer@aquarium.example", .viewer, venues: ["aquarium"])
        try await StaffConsoleTests.addStaff(server, "viewer@museum.example", .viewer, venues: ["museum"])
        let image = try TestImages.jpegWithEXIF(width: 400, height: 300, orientation: 1)
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo"), cy = try await client.newPlayer("Cy")
            let (_, made) = try await client.send(.post, "/api/v1/groups", json: #"{"venueId": "aquarium", "name": "Otters"}"#, headers: ada.auth)
            let otters = try #require(made["group"] as? [String: Any])
            let ottersId = try #require(otters["id"] as? String), ottersCode = try #require(otters["joinCode"] as? String)
            let unnamed = try await client.newGroup(by: bo), museum = try await client.newGroup(by: cy, venue: "museum")
            func upload(_ player: TestPlayer, _ group: String, _ task: String) async throws -> String {
                let (response, body) = try await PhotoRouteTests.upload(client, image, as: player, group: group, query: task)
                #expect(response.status == .created)
                return try #require((body["photo"] as? [String: Any])?["id"] as? String)
            }
            // 1,800,000,000 is 15 Jan 2027 at 9:00 in Stockholm (08:00 UTC).
            let shark = try await upload(ada, ottersId, "?mission=sharks&task=shark")
            server.clock.advance(by: 86_400)
            let free = try await upload(bo, unnamed.id, "")
            server.clock.advance(by: 60)
            let ray = try await upload(ada, ottersId, "?mission=rays&task=ray")
            let away = try await upload(cy, museum.id, "?mission=sharks&task=shark")

            let viewer = try #require(try await StaffConsoleTests.signIn(client, "viewer@aquarium.example").1)
            func shown(_ query: String) async throws -> [String] {
                let (status, html) = try await viewer.page(client, StaffURL.feed(venueId: "aquarium").path + query)
                #expect(status == .ok, "\(query)")
                return html.components(separatedBy: "/staff/photos/").dropFirst().compactMap { $0.split(separator: "/").first.map(String.init) }
                    .reduce(into: []) { ids, id in if ids.last != id { ids.append(id) } }
            }
            #expect(try await shown("") == [ray, free, shark], "newest first, not the museum's")
            let (_, html) = try await viewer.page(client, StaffURL.feed(venueId: "aquarium").path)
            for text in [
                "Otters", ottersCode, "Group \(unnamed.code)", "Sharks: Photograph a shark", "Rockor: Photograph a ray", "Free photo",
                "15 Jan 2027 at 9:00", "16 Jan 2027 at 9:01", "Times are in Europe/Stockholm time.",
                "href=\"\(StaffURL.photoDisplay(shark).path)\"", "href=\"\(StaffURL.group(ottersId).path)\"",
            ] {
                #expect(html.contains(text), "\(text)")
            }
            #expect(!html.contains(away) && !html.contains("Older photos"))
            let (_, venue) = try await viewer.page(client, StaffURL.venue("aquarium").path)
            #expect(venue.contains("href=\"\(StaffURL.feed(venueId: "aquarium").path)\""), "the venue page links the feed")

            #expect(try await shown("?mission=rays") == [ray])
            #expect(try await shown("?group=oTT") == [ray, shark], "part of the name, in any case")
            #expect(try await shown("?group=" + unnamed.code.lowercased()) == [free], "the join code")
            #expect(try await shown("?group=Ott+ers").isEmpty, "a space from the form is a space")
            #expect(try await shown("?from=2027-01-16") == [ray, free])
            #expect(try await shown("?to=2027-01-15") == [shark], "to the end of the venue's day")
            #expect(try await shown("?mission=sharks&group=otters&from=2027-01-15&to=2027-01-16") == [shark])
            #expect(try await viewer.page(client, StaffURL.feed(venueId: "aquarium").path + "?from=15.1.2027").0 == .unprocessableContent)

            // Another venue's staff, and a venue that does not exist: 404.
            let other = try #require(try await StaffConsoleTests.signIn(client, "viewer@museum.example").1)
            #expect(try await other.page(client, StaffURL.feed(venueId: "aquarium").path).0 == .notFound)
            #expect(try await other.page(client, StaffURL.feed(venueId: "nowhere").path).0 == .notFound)
            #expect(try await other.page(client, StaffURL.feed(venueId: "museum").path).1.contains(away))

            // 60 a page; the older page starts after the last one shown and keeps the filters.
            let database = try server.database()
            let group = try #require(try await database.group(id: unnamed.id))
            for index in 0..<60 {
                _ = try await database.addPhoto(
                    NewPhoto(groupId: group.id, photographerId: bo.id, missionId: nil, taskId: nil, blob: "blob\(index)", format: "jpeg", width: 4, height: 3, idempotencyKey: nil),
                    venue: nil, now: server.clock.now.addingTimeInterval(Double(index + 1))
                )
            }
            let page = try await shown("?group=" + unnamed.code)
            #expect(page.count == 60 && !page.contains(free))
            let (_, full) = try await viewer.page(client, StaffURL.feed(venueId: "aquarium").path + "?group=" + unnamed.code)
            let older = StaffURL.feed(venueId: "aquarium", StaffFeedQuery(group: unnamed.code, before: try #require(page.last))).path
            #expect(full.contains("href=\"\(older.replacingOccurrences(of: "&", with: "&amp;"))\""))
            #expect(try await shown(String(older.drop { $0 != "?" })) == [free])
        }
    }
}
