import Foundation
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GroupieServer

@Suite("Points and badges")
struct PointsRouteTests {
    /// The aquarium with points: 10 a task, 50 a mission, two badges.
    static func server() throws -> TestServer {
        let server = try TestServer()
        let file = TestServer.aquarium().replacingOccurrences(
            of: "missions:\n", with: "points:\n  task: 10\n  mission: 50\n  badges: [first-photo, all-missions]\nmissions:\n"
        )
        try server.write("aquarium.yaml", file)
        return server
    }

    @Test("A group sees its own standing; a class's wall shows its groups by name and points; no board without a class or names")
    func standing() async throws {
        let server = try Self.server()
        try await StaffConsoleTests.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        let shark = try TestImages.solid(width: 640, height: 480, rgb: (10, 90, 200), ext: "jpg")
        try await server.test { client in
            let (_, venue) = try await client.send(.get, "/api/v1/venues/aquarium", headers: [:])
            let points = try #require(venue["points"] as? [String: Any])
            #expect(points["task"] as? Int == 10 && points["mission"] as? Int == 50 && points["badges"] as? [String] == ["first-photo", "all-missions"])

            let ada = try await client.newPlayer("Ada"), cy = try await client.newPlayer("Cy")
            let group = try await client.newGroup(by: ada)
            func standing(_ id: String, as player: TestPlayer) async throws -> [String: Any]? {
                try await CollageRouteTests.document(client, group: id, as: player)["standing"] as? [String: Any]
            }
            #expect(try await standing(group.id, as: ada)?["points"] as? Int == 0)
            #expect(try await PhotoRouteTests.upload(client, shark, as: ada, group: group.id, query: "?mission=sharks&task=shark").0.status == .created)
            let own = try #require(try await standing(group.id, as: ada))
            #expect(own["points"] as? Int == 60 && own["badges"] as? [String] == ["first-photo"], "a task and its mission")

            // A class of two tables; Cy's table photographs the sharks.
            let moderator = try #require(try await StaffConsoleTests.signIn(client, "mod@aquarium.example").1)
            server.clock.advance(by: 600)
            #expect(try await moderator.post(client, "/staff/venues/aquarium/cards", ["name": "Table", "count": "2"]).status == .ok)
            let now = server.clock.now
            let stored = try #require(
                try await server.database().groupBatches(venueId: "aquarium", createdFrom: now.addingTimeInterval(-60), before: now.addingTimeInterval(60)).first
            )
            let table = try #require(stored.groups.first { $0.name == "Table 2" })
            _ = try await client.join(table.joinCode.value, as: cy)
            #expect(try await PhotoRouteTests.upload(client, shark, as: cy, group: table.id, query: "?mission=sharks&task=shark").0.status == .created)
            let batch = stored.id

            func wall(_ query: String) async throws -> [String: Any] {
                let (_, body) = try await PhotoRouteTests.bytes(client, "/staff/venues/aquarium/wall/items" + query, headers: moderator.headers)
                return try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            }
            let board = try #require(try await wall("?batch=\(batch)")["standing"] as? [[String: Any]])
            #expect(board.map { $0["group"] as? String } == ["Table 2", "Table 1"], "the class alone, most points first")
            #expect(board.map { $0["points"] as? Int } == [60, 0])
            #expect(board.allSatisfy { Set($0.keys) == ["group", "points", "badges"] }, "nothing of the members")
            #expect(try await wall("")["standing"] == nil, "no board of every group playing")
            #expect(try await wall("?batch=\(batch)&names=0")["standing"] == nil, "no board without names")
        }
    }
}
