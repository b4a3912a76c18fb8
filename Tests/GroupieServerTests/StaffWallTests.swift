import Foundation
import GroupieCore
import GroupieStorage
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GroupieServer

@Suite("The class's wall")
struct StaffWallTests {
    @Test("The wall lists the playing groups' collages and shared photos, newest first, with or without names, or a class's alone")
    func items() async throws {
        let server = try StaffDownloadTests.server()
        try await StaffConsoleTests.addStaff(server, "viewer@aquarium.example", .viewer, venues: ["aquarium"])
        try await StaffConsoleTests.addStaff(server, "mod@museum.example", .moderator, venues: ["museum"])
        try await StaffConsoleTests.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        let image = try TestImages.solid(width: 640, height: 480, rgb: (10, 90, 200), ext: "jpg")
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), cy = try await client.newPlayer("Cy")
            let group = try await client.newGroup(by: ada)
            _ = try await CollageRouteTests.completeReef(client, as: ada, group: group.id)
            #expect(try await ReloadTests.eventually {
                let (_, album) = try await client.send(.get, "/api/v1/groups/\(group.id)/photos", headers: ada.auth)
                return (album["collages"] as? [Any])?.count == 1
            } != nil)
            let moderator = try #require(try await StaffConsoleTests.signIn(client, "mod@aquarium.example").1)
            // Later than the group's photos, so that the table's photo is the newest.
            server.clock.advance(by: 600)
            // A class's table cards, and another class's made at the same moment: the batch stored
            // with the groups tells them apart.
            #expect(try await moderator.post(client, "/staff/venues/aquarium/cards", ["name": "Table", "count": "2", "label": "Class 4B"]).status == .ok)
            #expect(try await moderator.post(client, "/staff/venues/aquarium/cards", ["name": "Table", "count": "3"]).status == .ok)
            let now = server.clock.now
            let batches = try await server.database().groupBatches(venueId: "aquarium", createdFrom: now.addingTimeInterval(-3600), before: now.addingTimeInterval(60))
            let batch = try #require(batches.first { $0.label == "Class 4B" }).id
            let unlabelled = try #require(batches.first { $0.label == nil }).id
            let table = try #require(batches.first { $0.id == batch }?.groups.first { $0.name == "Table 2" })
            _ = try await client.join(table.joinCode.value, as: cy)
            #expect(try await PhotoRouteTests.upload(client, image, as: cy, group: table.id).0.status == .created)

            // The viewer sees the wall; the page offers the class by its tables' names.
            let viewer = try #require(try await StaffConsoleTests.signIn(client, "viewer@aquarium.example").1)
            let (status, page) = try await viewer.page(client, "/staff/venues/aquarium/wall")
            #expect(status == .ok)
            #expect(page.contains(#"<option value="\#(batch)">Class 4B: Table 1 to Table 2, made "#))
            #expect(page.contains(#"<option value="\#(unlabelled)">Table cards Table 1 to Table 3, made "#))
            #expect(page.contains(#"data-events="/staff/venues/aquarium/events""#))

            func items(_ query: String) async throws -> [[String: Any]] {
                let (_, body) = try await PhotoRouteTests.bytes(client, "/staff/venues/aquarium/wall/items" + query, headers: viewer.headers)
                return try #require((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["items"] as? [[String: Any]])
            }
            let every = try await items("")
            #expect(every.count == 5, "three photos and a collage of the group, a photo of the table")
            #expect(every.first?["group"] as? String == "Table 2", "newest first")
            let collage = try #require(every.first { $0["kind"] as? String == "collage" })
            #expect(collage["caption"] as? String == "The reef" && collage["group"] as? String == "Group \(group.code)")
            let src = try #require(collage["src"] as? String)
            let (imageStatus, jpeg) = try await PhotoRouteTests.bytes(client, src, headers: viewer.headers)
            #expect(imageStatus == .ok && jpeg.starts(with: [0xFF, 0xD8]))
            #expect(try await items("?names=0").allSatisfy { $0["group"] == nil }, "no names when asked for none")
            #expect(try await items("?batch=\(batch)").map { $0["group"] as? String } == ["Table 2"])
            #expect(try await items("?batch=\(unlabelled)").isEmpty, "the other class, made at the same moment, took no photo")

            let other = try #require(try await StaffConsoleTests.signIn(client, "mod@museum.example").1)
            #expect(try await other.page(client, "/staff/venues/aquarium/wall").0 == .notFound)
            #expect(try await other.page(client, "/staff/venues/aquarium/wall/items").0 == .notFound)
            #expect(try await PhotoRouteTests.bytes(client, src, headers: other.headers).0 == .notFound)
        }
    }
}
