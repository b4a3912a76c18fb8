import Foundation
@testable import GroupieServer
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Splitting the tasks (claims), hiding a teammate's photo, the client's files gzipped, and an
/// upload cut off mid-body: over HTTP.
@Suite("Teamwork and bad Wi-Fi")
struct TeamworkRouteTests {
    @Test("A claim is told to the group and shown on its task; a teammate's claim of it is refused; it ends when released")
    func claims() async throws {
        let server = try PhotoRouteTests.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            let claim = "/api/v1/groups/\(group.id)/missions/sharks/tasks/shark/claim"
            #expect(try await client.send(.put, claim, headers: ada.auth).0.status == .noContent)

            func shown() async throws -> [String: Any]? {
                let (_, seen) = try await client.send(.get, "/api/v1/groups/\(group.id)", headers: bo.auth)
                let missions = (seen["group"] as? [String: Any])?["missions"] as? [[String: Any]]
                let task = (missions?.first { $0["id"] as? String == "sharks" }?["tasks"] as? [[String: Any]])?.first { $0["id"] as? String == "shark" }
                return task?["claim"] as? [String: Any]
            }
            #expect(try await shown()?["name"] as? String == "Ada")
            #expect(try await shown()?["playerId"] as? String == ada.id)
            let (taken, problem) = try await client.send(.put, claim, headers: bo.auth)
            #expect(taken.status == .conflict && problem["code"] as? String == "task-claimed")
            let (unknown, why) = try await client.send(.put, "/api/v1/groups/\(group.id)/missions/sharks/tasks/nope/claim", headers: bo.auth)
            #expect(unknown.status == .conflict && why["code"] as? String == "task-not-open")
            #expect(try await client.send(.delete, claim, headers: bo.auth).0.status == .noContent, "Bo has nothing to release")
            #expect(try await shown()?["name"] as? String == "Ada")
            #expect(try await client.send(.delete, claim, headers: ada.auth).0.status == .noContent)
            #expect(try await shown() == nil)
            let kinds = try await server.database().events(groupId: group.id, after: 0, limit: 100).map(\.kind)
            #expect(kinds.filter { $0 == .taskClaimed || $0 == .taskReleased } == [.taskClaimed, .taskReleased])
            let stranger = try await client.newPlayer("Cy")
            #expect(try await client.send(.put, claim, headers: stranger.auth).0.status == .notFound)
        }
    }

    @Test("The group's creator hides a teammate's photo from the group instead of deleting it; no one else may")
    func creatorHides() async throws {
        let server = try PhotoRouteTests.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            let image = try TestImages.solid(width: 300, height: 200, rgb: (1, 100, 1), ext: "jpg")
            let (_, answer) = try await PhotoRouteTests.upload(client, image, as: bo, group: group.id, query: "?mission=sharks&task=shark")
            let photoId = try #require((answer["photo"] as? [String: Any])?["id"] as? String)
            let (ownPhoto, _) = try await PhotoRouteTests.upload(client, image, as: ada, group: group.id)
            #expect(ownPhoto.status == .created)
            let (refused, problem) = try await client.send(.delete, "/api/v1/photos/\(photoId)", headers: ada.auth)
            #expect(refused.status == .forbidden && problem["code"] as? String == "creator-may-only-hide")
            let (notCreator, why) = try await client.send(.post, "/api/v1/photos/\(photoId)/hide", headers: bo.auth)
            #expect(notCreator.status == .forbidden, "only the creator hides")
            #expect(why["code"] as? String == "not-allowed" && why["detail"] as? String == "Only the group's creator can hide a teammate's photo from the group.")
            #expect(try await client.send(.post, "/api/v1/photos/\(photoId)/hide", headers: ada.auth).0.status == .noContent)
            #expect(try await server.database().moderatedPhoto(id: photoId)?.hidden == true, "hidden from the group, kept for the staff")
            let (_, album) = try await client.send(.get, "/api/v1/groups/\(group.id)/photos", headers: bo.auth)
            #expect((album["photos"] as? [[String: Any]])?.contains { $0["id"] as? String == photoId } == false)
        }
    }

    @Test("A full group's join page says so before anyone types a name")
    func fullGroupPage() async throws {
        let server = try PhotoRouteTests.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            func page() async throws -> String {
                try await client.execute(uri: "/j/\(group.code)", method: .get) { String(buffer: $0.body) }
            }
            #expect(try await page().contains(#"data-state="joinable""#))
            var full = false
            for index in 0..<20 where !full {
                let (answer, _) = try await client.join(group.code, as: try await client.newPlayer("Filler \(index)"))
                full = answer.status == .conflict
            }
            try #require(full, "the group filled up")
            let shown = try await page()
            #expect(shown.contains(#"data-state="full""#) && shown.contains("This group is full"), "\(shown.prefix(2000))")
        }
    }

    @Test("The client's text files go gzipped to a browser that takes gzip, as they are to one that does not, varying by Accept-Encoding")
    func compression() async throws {
        let server = try TestServer.samples()
        try await server.test { client in
            let plain = try await client.execute(uri: "/assets/web/app.js", method: .get, headers: [.acceptEncoding: "identity"]) { $0 }
            #expect(plain.status == .ok && plain.headers[.contentEncoding] == nil)
            #expect(plain.headers[.vary] == "Accept-Encoding")
            let original = Data(buffer: plain.body)
            for accepted in ["gzip, deflate, br", "br;q=1, gzip;q=0.5", "*"] {
                let zipped = try await client.execute(uri: "/assets/web/app.js", method: .get, headers: [.acceptEncoding: accepted]) { $0 }
                #expect(zipped.status == .ok && zipped.headers[.contentEncoding] == "gzip", "\(accepted)")
                #expect(zipped.headers[.vary] == "Accept-Encoding")
                #expect(zipped.body.readableBytes < original.count / 2, "\(zipped.body.readableBytes) of \(original.count)")
                #expect(try Self.gunzip(Data(buffer: zipped.body)) == original)
            }
            for refused in ["gzip;q=0", "br", "gzip;q=0, *"] {
                let answer = try await client.execute(uri: "/assets/web/app.js", method: .get, headers: [.acceptEncoding: refused]) { $0 }
                #expect(answer.headers[.contentEncoding] == nil, "\(refused)")
            }
            let picture = try await client.execute(uri: "/assets/web/icon-192.png", method: .get, headers: [.acceptEncoding: "gzip"]) { $0 }
            #expect(picture.status == .ok && picture.headers[.contentEncoding] == nil && picture.headers[.vary] == nil, "pictures go as they are")
        }
    }

    @Test("An upload whose client goes away mid-body is counted as the client's 400, not the server's 500")
    func droppedUpload() async throws {
        let server = try PhotoRouteTests.server()
        try await server.test(.live) { client in
            let port = try #require((client as? TestServer.LiveClient)?.port)
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let series = #"http_route="/api/v1/groups/{groupId}/photos",http_request_method="POST",http_response_status_code=""#
            let before = try await RequestMetricsTests.samples(client)
            let socket = try EventStreamReader.connect(port: port)
            let head = "POST /api/v1/groups/\(group.id)/photos HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(ada.token)\r\n"
                + "Content-Type: image/jpeg\r\nContent-Length: 2000000\r\n\r\n"
            _ = head.withCString { Glibc.send(socket, $0, strlen($0), 0) }
            let part = [UInt8](repeating: 0xFF, count: 64 * 1024)
            _ = part.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, 0) }
            close(socket)
            var after = before
            for _ in 0..<100 {
                try await Task.sleep(for: .milliseconds(100))
                after = try await RequestMetricsTests.samples(client)
                if (after["hb_requests{\(series)400\"}"] ?? 0) > (before["hb_requests{\(series)400\"}"] ?? 0) { break }
            }
            #expect((after["hb_requests{\(series)400\"}"] ?? 0) - (before["hb_requests{\(series)400\"}"] ?? 0) == 1, "counted as the client's")
            #expect((after["hb_requests{\(series)500\"}"] ?? 0) == (before["hb_requests{\(series)500\"}"] ?? 0), "not as the server's")
            #expect(PhotoRouteTests.temporaryFiles(server).isEmpty, "the part received is not kept")
        }
    }

    static func gunzip(_ data: Data) throws -> Data {
        try ChildProcess.run("/bin/gzip", ["-dc"], input: data).outputData
    }
}
