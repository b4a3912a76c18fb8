import Foundation
import GroupieServer
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Retention")
struct RetentionTests {
    @Test("Groups older than the retention period go with their photos, collages and files; newer ones stay")
    func sweep() async throws {
        var server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        server.configuration.retention = .seconds(30 * 24 * 3600)
        server.configuration.retentionSweepInterval = .milliseconds(100)
        let image = try TestImages.solid(width: 300, height: 300, rgb: (8, 8, 8), ext: "jpg")
        let other = try TestImages.solid(width: 300, height: 300, rgb: (80, 8, 8), ext: "jpg")
        let clock = server.clock
        let dataDirectory = server.configuration.dataDirectory
        let frozen = server
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let old = try await client.newGroup(by: ada)
            _ = try await PhotoRouteTests.upload(client, image, as: ada, group: old.id, query: "?mission=sharks&task=shark")
            let collages = dataDirectory + "/collages/" + old.id
            #expect(try await ReloadTests.eventually {
                ((try? FileManager.default.contentsOfDirectory(atPath: collages)) ?? []).count == 1
            } != nil, "the completed mission's collage is made")
            clock.advance(by: 20 * 24 * 3600)
            let recent = try await client.newGroup(by: bo)
            _ = try await PhotoRouteTests.upload(client, other, as: bo, group: recent.id)
            clock.advance(by: 11 * 24 * 3600)
            // Ada, in no group once hers is gone, goes with it: her token is no one's any more.
            let gone = try await ReloadTests.eventually {
                try await client.send(.get, "/api/v1/me", headers: ada.auth).0.status == .unauthorized
            }
            #expect(gone != nil, "the member of nothing but the 31-day-old group was deleted")
            #expect(try await frozen.database().groupExists(id: old.id) == false, "with the group")
            #expect(try await client.send(.get, "/api/v1/me", headers: bo.auth).0.status == .ok)
            #expect(try await ReloadTests.eventually { !FileManager.default.fileExists(atPath: collages) } != nil, "and its collages")
            #expect(try await client.send(.get, "/api/v1/groups/\(recent.id)", headers: bo.auth).0.status == .ok)
        }
        #expect(try await server.database().counts().photos == 1)
        #expect(PhotoRouteTests.blobFiles(server).count == 4, "the old photo's files went; the recent one's four stay")
    }
}

@Suite("Photos of a group without a creator")
struct CreatorlessGroupTests {
    @Test("a photographer deletes their own photo after the group's creator left an empty group")
    func photographerDeletes() async throws {
        let server = try PhotoRouteTests.server()
        let image = try TestImages.solid(width: 400, height: 300, rgb: (20, 90, 140), ext: "jpg")
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo"), cy = try await client.newPlayer("Cy")
            let group = try await client.newGroup(by: ada)
            // The group empties: no one takes over as creator.
            #expect(try await client.send(.delete, "/api/v1/groups/\(group.id)/members/\(ada.id)", headers: ada.auth).0.status == .noContent)
            #expect(try await client.join(group.code, as: bo).0.status == .ok)
            #expect(try await client.join(group.code, as: cy).0.status == .ok)
            let (_, body) = try await PhotoRouteTests.upload(client, image, as: bo, group: group.id, query: "?mission=sharks&task=shark")
            let photoId = try #require((body["photo"] as? [String: Any])?["id"] as? String)
            let (refused, problem) = try await client.send(.delete, "/api/v1/photos/\(photoId)", headers: cy.auth)
            #expect(refused.status == .forbidden)
            #expect(problem["code"] as? String == "not-allowed")
            #expect(try await client.send(.delete, "/api/v1/photos/\(photoId)", headers: bo.auth).0.status == .noContent)
        }
    }
}
