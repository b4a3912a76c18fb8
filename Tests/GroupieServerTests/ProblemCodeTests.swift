import Foundation
@testable import GroupieServer
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Problem codes a client branches on, each provoked and read back by its code: a status alone
/// would pass with another code.
@Suite("Problem codes")
struct ProblemCodeTests {
    static func code(_ response: TestResponse) -> String? {
        ((try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any])?["code"] as? String
    }

    @Test("A timed mission's answers and photos after its time get 409 time-up")
    func timeUp() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium(extraMission: AnswerRouteTests.quiz.replacingOccurrences(of: "time_limit: 15", with: "time_limit: 1")))
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let base = "/api/v1/groups/\(group.id)/missions/quiz/tasks"
            #expect(try await client.send(.post, base + "/colour/answer", json: #"{"choice": 1}"#, headers: ada.auth).0.status == .ok)
            server.clock.advance(by: 61)
            let (late, problem) = try await client.send(.post, base + "/sticker/answer", json: #"{"text": "LION-42"}"#, headers: ada.auth)
            #expect(late.status == .conflict && problem["code"] as? String == "time-up", "\(problem)")
        }
    }

    @Test("Event streams past a group's bound get 429 too-many-streams, past the server's share 503 streams-full")
    func streamBounds() throws {
        let allowance = StreamAllowance(limits: .init(perPlayer: 4, perGroup: 2, total: 3))
        let held = [try allowance.take(groupId: "g", playerId: "a"), try allowance.take(groupId: "g", playerId: "b")]
        let group = #expect(throws: Problem.self) { try allowance.take(groupId: "g", playerId: "c") }
        #expect(group?.status == .tooManyRequests && group?.code == "too-many-streams" && group?.headers[.retryAfter] != nil)
        let third = try allowance.take(groupId: "h", playerId: "d")
        let full = #expect(throws: Problem.self) { try allowance.take(groupId: "i", playerId: "e") }
        #expect(full?.status == .serviceUnavailable && full?.code == "streams-full" && full?.headers[.retryAfter] != nil)
        withExtendedLifetime((held, third)) {}
    }

    @Test("Files past the bound of answers streamed at once get 503 downloads-busy at the route, with Retry-After")
    func downloadsBusy() async throws {
        var server = try PhotoRouteTests.server()
        server.configuration.streamedDownloads = 0
        let image = try TestImages.solid(width: 400, height: 300, rgb: (10, 120, 200), ext: "jpg")
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            #expect(try await PhotoRouteTests.upload(client, image, as: ada, group: group.id).0.status == .created)
            // The album is streamed whatever its size (a photo's file of one chunk goes at once).
            let token = try await EventTests.streamToken(client, group: group.id, player: ada)
            let response = try await client.execute(uri: "/api/v1/groups/\(group.id)/album.zip?token=\(token)", method: .get) { $0 }
            #expect(response.status == .serviceUnavailable && Self.code(response) == "downloads-busy", "\(String(buffer: response.body))")
            #expect(response.headers[.retryAfter] != nil)
        }
    }

    @Test("A query that names a parameter twice gets 400 duplicate-parameter and changes nothing, as a JSON field given twice does")
    func duplicateParameters() async throws {
        let server = try PhotoRouteTests.server()
        let image = try TestImages.solid(width: 400, height: 300, rgb: (10, 120, 200), ext: "jpg")
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let (twice, problem) = try await PhotoRouteTests.upload(client, image, as: ada, group: group.id, query: "?mission=sharks&task=shark&mission=reef")
            #expect(twice.status == .badRequest && problem["code"] as? String == "duplicate-parameter", "\(problem)")
            #expect(try await server.database().counts().photos == 0)
            let (read, _) = try await client.send(.get, "/api/v1/groups/\(group.id)/photos?limit=5&limit=500", headers: ada.auth)
            #expect(read.status == .badRequest)
            #expect(try await PhotoRouteTests.upload(client, image, as: ada, group: group.id, query: "?mission=sharks&task=shark").0.status == .created)
        }
    }

    @Test("A file that is no image gets 415 unsupported-image; one too small to see, 422 image-too-small")
    func images() async throws {
        let server = try PhotoRouteTests.server()
        let text = TestImages.folder + "/not-an-image-\(UUID().uuidString).jpg"
        try Data(String(repeating: "not a photo at all ", count: 200).utf8).write(to: URL(fileURLWithPath: text))
        let tiny = try TestImages.solid(width: 16, height: 16, rgb: (200, 10, 10), ext: "jpg")
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let (notImage, why) = try await PhotoRouteTests.upload(client, text, as: ada, group: group.id)
            #expect(notImage.status == .unsupportedMediaType && why["code"] as? String == "unsupported-image", "\(why)")
            let (small, reason) = try await PhotoRouteTests.upload(client, tiny, as: ada, group: group.id)
            #expect(small.status == .unprocessableContent && reason["code"] as? String == "image-too-small", "\(reason)")
        }
    }
}
