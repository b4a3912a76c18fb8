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

    @Test("A photo whose sender stops half-way gets 400 upload-interrupted, and nothing is stored")
    func uploadInterrupted() async throws {
        let server = try PhotoRouteTests.server()
        let image = try Data(contentsOf: URL(fileURLWithPath: try TestImages.jpegWithEXIF(width: 1200, height: 900, orientation: 1)))
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let socket = try EventStreamReader.connect(port: port)
            defer { close(socket) }
            let head = "POST /api/v1/groups/\(group.id)/photos HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(ada.token)\r\n"
                + "Content-Type: image/jpeg\r\nContent-Length: \(image.count)\r\n\r\n"
            let sent = Data(head.utf8) + image.prefix(image.count / 2)
            _ = sent.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
            // The phone's side of the connection ends (it went out of the Wi-Fi's reach), while
            // it can still hear the answer.
            shutdown(socket, Int32(SHUT_WR))
            let answer = try await within(.seconds(60), "the server's answer to a photo cut off, and its end of the connection") { () -> Data in
                var answer = Data(), chunk = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = recv(socket, &chunk, chunk.count, Int32(MSG_DONTWAIT))
                    if count == 0 { return answer }
                    if count > 0 { answer.append(contentsOf: chunk[0..<count]) } else { try await Task.sleep(for: .milliseconds(20)) }
                }
            }
            let text = String(decoding: answer, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 400 ") && text.contains(#""code":"upload-interrupted""#), "\(text)")
        }
        #expect(try await server.database().counts().photos == 0)
    }

    @Test("A part sent while another request holds the upload gets 409 upload-busy with Retry-After; once free, the part is taken")
    func uploadBusy() async throws {
        let server = try PhotoRouteTests.server()
        let image = try Data(contentsOf: URL(fileURLWithPath: try TestImages.jpegWithEXIF(width: 1200, height: 900, orientation: 1)))
        let half = image.count / 2
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            #expect(try await ResumableUploadTests.put(client, image, 0...(half - 1), key: "k", as: ada, group: group.id).0.status == .ok)
            // Another request adding to the upload holds its lock, as a part being received does.
            let root = server.configuration.dataDirectory + "/uploads"
            let lockPath = try #require(((FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []).first { $0.hasSuffix("/lock") })
            let held = open(root + "/" + lockPath, O_RDWR | O_CLOEXEC)
            try #require(held >= 0 && flock(held, LOCK_EX) == 0)
            let (busy, problem) = try await ResumableUploadTests.put(client, image, half...(image.count - 1), key: "k", as: ada, group: group.id)
            #expect(busy.status == .conflict && problem["code"] as? String == "upload-busy" && busy.headers[.retryAfter] == "1", "\(problem)")
            flock(held, LOCK_UN)
            close(held)
            #expect(try await ResumableUploadTests.offset(client, key: "k", as: ada, group: group.id) == half, "the refused part changed nothing")
            let (taken, body) = try await ResumableUploadTests.put(client, image, half...(image.count - 1), key: "k", as: ada, group: group.id)
            #expect(taken.status == .created, "\(taken.status) \(body)")
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
