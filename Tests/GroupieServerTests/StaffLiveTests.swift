import Foundation
import GroupieCore
@testable import GroupieServer
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("The staff console's live pages")
struct StaffLiveTests {
    @Test("A new group reaches the venue's live feed at once, not another venue's; a group's page listens to its own group")
    func groupCreated() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        try server.write("museum.yaml", TestServer.aquarium(id: "museum"))
        try await StaffConsoleTests.addStaff(server, "viewer@aquarium.example", .viewer, venues: ["aquarium"])
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let viewer = try #require(try await StaffConsoleTests.signIn(client, "viewer@aquarium.example").1)
            let stream = try EventStreamReader(
                port: port, path: StaffURL.events(venueId: "aquarium").path, headers: ["Cookie": "\(StaffSession.cookieName)=\(viewer.cookie)"]
            )
            #expect(await stream.read(for: 120) { $0.contains("retry: 5000") }.contains("retry: 5000"))
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let away = try await client.newGroup(by: bo, venue: "museum")
            let group = try await client.newGroup(by: ada)
            let text = await stream.read(for: 120) { $0.contains(group.id) }
            #expect(text.contains("event: group-created\ndata: {\"groupId\":\"\(group.id)\"}"))
            #expect(!text.contains(away.id), "another venue's group is not told")

            let (status, page) = try await viewer.page(client, StaffURL.group(group.id).path)
            #expect(status == .ok)
            #expect(page.contains("data-events=\"\(StaffURL.events(venueId: "aquarium").path)\" data-group=\"\(group.id)\""))
        }
    }
}
