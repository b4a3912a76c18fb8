import Foundation
import GroupieServer
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Photos")
struct PhotoRouteTests {
    static func server() throws -> TestServer {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        return server
    }

    /// Files under `data/blobs`, apart from the folder of temporary files.
    static func blobFiles(_ server: TestServer) -> [String] {
        let root = server.configuration.dataDirectory + "/blobs"
        let all = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []
        return all.filter { !$0.hasPrefix("tmp") && $0.contains(".") }.sorted()
    }

    static func temporaryFiles(_ server: TestServer) -> [String] {
        temporaryFiles(data: server.configuration.dataDirectory)
    }

    /// Files under `blobs/tmp`, apart from each running instance's folder and its lock.
    static func temporaryFiles(data: String) -> [String] {
        let root = data + "/blobs/tmp"
        let all = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []
        return all.filter { item in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + item, isDirectory: &isFolder) && !isFolder.boolValue && !item.hasSuffix("/.lock")
        }
    }

    static func upload(_ client: some TestClientProtocol, _ path: String, as player: TestPlayer, group: String, query: String = "", headers: HTTPFields = [:]) async throws -> (TestResponse, [String: Any]) {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        var all = player.auth
        all[.contentType] = "image/jpeg"
        for field in headers { all[field.name] = field.value }
        return try await client.execute(uri: "/api/v1/groups/\(group)/photos\(query)", method: .post, headers: all, body: ByteBuffer(bytes: bytes)) { response in
            (response, (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:])
        }
    }

    static func bytes(_ client: some TestClientProtocol, _ uri: String, headers: HTTPFields = [:]) async throws -> (HTTPResponse.Status, Data) {
        try await client.execute(uri: uri, method: .get, headers: headers) { ($0.status, Data(buffer: $0.body)) }
    }

    @Test("A photo for a task completes it; the group sees the photographer; the next mission unlocks")
    func uploadForTask() async throws {
        let server = try Self.server()
        let image = try TestImages.jpegWithEXIF(width: 2000, height: 1500, orientation: 6)
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            let (response, body) = try await Self.upload(client, image, as: bo, group: group.id, query: "?mission=sharks&task=shark")
            #expect(response.status == .created)
            let photo = try #require(body["photo"] as? [String: Any])
            #expect(photo["missionId"] as? String == "sharks")
            #expect(photo["taskId"] as? String == "shark")
            #expect((photo["photographer"] as? [String: Any])?["name"] as? String == "Bo")
            #expect(photo["width"] as? Int == 1500 && photo["height"] as? Int == 2000, "oriented size")

            let (_, seen) = try await client.send(.get, "/api/v1/groups/\(group.id)", headers: ada.auth)
            let document = try #require(seen["group"] as? [String: Any])
            let missions = try #require(document["missions"] as? [[String: Any]])
            #expect(missions.map { $0["complete"] as? Bool } == [true, false])
            #expect(missions.map { $0["unlocked"] as? Bool } == [true, true])
            let task = try #require((missions[0]["tasks"] as? [[String: Any]])?.first)
            #expect(task["state"] as? String == "done")
            #expect((task["chosenPhoto"] as? [String: Any])?["photographerName"] as? String == "Bo")
            let members = try #require(document["members"] as? [[String: Any]])
            #expect(members.first { $0["name"] as? String == "Bo" }?["tasksCompleted"] as? Int == 1)
            #expect(members.first { $0["name"] as? String == "Ada" }?["tasksCompleted"] as? Int == 0)
        }
        #expect(Self.temporaryFiles(server).isEmpty)
    }

    @Test("Served images: display is portrait for orientation 6, nothing carries GPS, signed URLs need no token")
    func servedImages() async throws {
        let server = try Self.server()
        let image = try TestImages.jpegWithEXIF(width: 2000, height: 1500, orientation: 6)
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let (_, body) = try await Self.upload(client, image, as: ada, group: group.id)
            let urls = try #require((body["photo"] as? [String: Any])?["urls"] as? [String: String])
            for variant in ["thumb", "display", "original"] {
                let url = try #require(urls[variant])
                let (status, data) = try await Self.bytes(client, url)
                #expect(status == .ok, "\(variant) by its signed URL, without a token")
                #expect(!data.contains(subsequence: TestImages.gpsLatitude), "\(variant) carries no GPS")
                let path = try TestImages.write([UInt8](data), ext: "jpg")
                let header = try TestImages.header(path)
                if variant == "display" { #expect(header.width == 1200 && header.height == 1600) }
                if variant == "thumb" { #expect(header.width == 300 && header.height == 400) }
                if variant == "original" {
                    // The same coded image, rebuilt around its orientation only.
                    #expect(header == (try TestImages.header(image)))
                    #expect(data.count <= (try Data(contentsOf: URL(fileURLWithPath: image))).count)
                }
            }
            let tampered = try #require(urls["display"]).replacingOccurrences(of: "sig=", with: "sig=0")
            #expect(try await Self.bytes(client, tampered).0 == .unauthorized)
            let photoId = try #require((body["photo"] as? [String: Any])?["id"] as? String)
            #expect(try await Self.bytes(client, "/api/v1/photos/\(photoId)/display", headers: ada.auth).0 == .ok)
            let stranger = try await client.newPlayer("Stranger")
            #expect(try await Self.bytes(client, "/api/v1/photos/\(photoId)/display", headers: stranger.auth).0 == .notFound)
            server.clock.advance(by: 7 * 3600)
            #expect(try await Self.bytes(client, try #require(urls["thumb"])).0 == .unauthorized, "signatures expire")
        }
    }

    static let badImages = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("BadImages").path

    @Test("Bad images get a problem document and leave no file, no temp file and no row", arguments: [
        ("empty.jpg", 415), ("gif-as-jpeg.jpg", 415), ("svg-as-jpeg.jpg", 415), ("pdf-as-jpeg.jpg", 415),
        ("html-as-jpeg.jpg", 415), ("avif.jpg", 415), ("png-100000x100000.png", 422), ("truncated.jpg", 422), ("tiny-40x40.jpg", 422),
        ("png-64x1000000.png", 422),
    ])
    func badImages(file: String, status: Int) async throws {
        let server = try Self.server()
        let path = Self.badImages + "/" + file
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let (response, problem) = try await Self.upload(client, path, as: ada, group: group.id, query: "?mission=sharks&task=shark")
            #expect(response.status.code == status)
            #expect(response.headers[.contentType] == "application/problem+json")
            #expect(problem["code"] is String)
            if file == "png-64x1000000.png" { #expect(problem["code"] as? String == "image-too-narrow", "a sliver costs a collage its length") }
            #expect(try await client.send(.get, "/healthz").0.status == .ok, "the server goes on serving")
        }
        #expect(Self.blobFiles(server).isEmpty)
        #expect(Self.temporaryFiles(server).isEmpty)
        #expect(try await server.database().counts().photos == 0)
    }

    @Test("Over the size limit is 413; wrong or locked tasks and strangers are refused")
    func refusals() async throws {
        var server = try Self.server()
        server.configuration.maxUploadBytes = 20_000
        let big = try TestImages.solid(width: 3000, height: 3000, rgb: (255, 0, 0), ext: "jpg")
        let image = try TestImages.solid(width: 400, height: 300, rgb: (0, 255, 0), ext: "jpg")
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), stranger = try await client.newPlayer("Stranger")
            let group = try await client.newGroup(by: ada)
            let cases: [(String, TestPlayer, String, Int, String)] = [
                (big, ada, "", 413, "photo-too-large"),
                (image, ada, "?mission=rays&task=ray", 409, "mission-locked"),
                (image, ada, "?mission=whales&task=x", 422, "unknown-mission"),
                (image, ada, "?mission=sharks&task=whale", 422, "unknown-task"),
                (image, ada, "?mission=sharks", 422, "invalid-task"),
                (image, stranger, "", 404, "group-not-found"),
            ]
            for (path, player, query, status, code) in cases {
                let (response, problem) = try await Self.upload(client, path, as: player, group: group.id, query: query)
                #expect(response.status.code == status, "\(query)")
                #expect(problem["code"] as? String == code)
                if code == "mission-locked" { #expect(problem["detail"] as? String == "Mission 'rays' unlocks when mission 'sharks' is complete.") }
            }
        }
        #expect(Self.blobFiles(server).isEmpty)
        #expect(Self.temporaryFiles(server).isEmpty)
        #expect(try await server.database().counts().photos == 0)
    }

    @Test("An HTML form's multipart/form-data upload works like the bare image")
    func multipart() async throws {
        let server = try Self.server()
        let image = try Data(contentsOf: URL(fileURLWithPath: try TestImages.solid(width: 640, height: 480, rgb: (70, 7, 170), ext: "jpg")))
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let boundary = "----groupie\(UUID().uuidString)"
            var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n".utf8)
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"shark.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
            body += image + Data("\r\n--\(boundary)--\r\n".utf8)
            var headers = ada.auth
            headers[.contentType] = "multipart/form-data; boundary=\(boundary)"
            let (status, json) = try await client.execute(uri: "/api/v1/groups/\(group.id)/photos?mission=sharks&task=shark", method: .post, headers: headers, body: ByteBuffer(bytes: body)) { response in
                (response.status, (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:])
            }
            #expect(status == .created)
            #expect((json["photo"] as? [String: Any])?["width"] as? Int == 640)
            let original = try #require(((json["photo"] as? [String: Any])?["urls"] as? [String: String])?["original"])
            let served = try await Self.bytes(client, original).1
            #expect(try TestImages.header(try TestImages.write([UInt8](served), ext: "jpg")) == (640, 480), "the file field's image")
            #expect(served.count <= image.count && served.count > image.count / 2, "the same coded image, without its metadata")

            let empty = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n--\(boundary)--\r\n".utf8)
            let (missing, problem) = try await client.execute(uri: "/api/v1/groups/\(group.id)/photos", method: .post, headers: headers, body: ByteBuffer(bytes: empty)) { response in
                (response.status, (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:])
            }
            #expect(missing == .unprocessableContent)
            #expect(problem["code"] as? String == "missing-file")
        }
        #expect(try await server.database().counts().photos == 1)
    }

    @Test("A HEIC photo from an iPhone is taken; its original is served as a JPEG without metadata")
    func heic() async throws {
        let server = try Self.server()
        let image = try TestImages.solid(width: 640, height: 480, rgb: (30, 60, 90), ext: "heic")
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let (response, body) = try await Self.upload(client, image, as: ada, group: group.id)
            #expect(response.status == .created)
            let original = try #require(((body["photo"] as? [String: Any])?["urls"] as? [String: String])?["original"])
            try await client.execute(uri: original, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(Data(buffer: response.body).starts(with: [0xFF, 0xD8, 0xFF]))
            }
        }
    }

    @Test("A photo whose file went missing from disk is a 404 problem, not a 500")
    func missingFile() async throws {
        let server = try Self.server()
        let image = try TestImages.solid(width: 300, height: 200, rgb: (4, 40, 140), ext: "jpg")
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let (_, body) = try await Self.upload(client, image, as: ada, group: group.id)
            let url = try #require(((body["photo"] as? [String: Any])?["urls"] as? [String: String])?["display"])
            for file in Self.blobFiles(server) where file.hasSuffix("-display.jpg") {
                try FileManager.default.removeItem(atPath: server.configuration.dataDirectory + "/blobs/" + file)
            }
            let (response, problem) = try await client.send(.get, url)
            #expect(response.status == .notFound)
            #expect(problem["code"] as? String == "photo-file-missing")
        }
    }

    @Test("A retried upload with the same Idempotency-Key gives the first photo, not a second")
    func idempotency() async throws {
        let server = try Self.server()
        let image = try TestImages.solid(width: 640, height: 480, rgb: (7, 77, 177), ext: "jpg")
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let key: HTTPFields = [.init("Idempotency-Key")!: "upload-1"]
            let (first, firstBody) = try await Self.upload(client, image, as: ada, group: group.id, headers: key)
            let (second, secondBody) = try await Self.upload(client, image, as: ada, group: group.id, headers: key)
            #expect(first.status == .created && second.status == .created)
            #expect((firstBody["photo"] as? [String: Any])?["id"] as? String == (secondBody["photo"] as? [String: Any])?["id"] as? String)
        }
        #expect(try await server.database().counts().photos == 1)
    }

    @Test("The album is newest first, paginated by cursor, filtered by mission")
    func album() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            var ids: [String] = []
            for index in 0..<5 {
                server.clock.advance(by: 1)
                let image = try TestImages.solid(width: 100 + index, height: 100, rgb: (index * 40, 0, 0), ext: "jpg")
                let query = index == 2 ? "?mission=sharks&task=shark" : ""
                let (_, body) = try await Self.upload(client, image, as: ada, group: group.id, query: query)
                ids.append(try #require((body["photo"] as? [String: Any])?["id"] as? String))
            }
            let (_, page1) = try await client.send(.get, "/api/v1/groups/\(group.id)/photos?limit=2", headers: ada.auth)
            #expect((page1["photos"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [ids[4], ids[3]])
            let cursor = try #require(page1["next"] as? String)
            let (_, page2) = try await client.send(.get, "/api/v1/groups/\(group.id)/photos?limit=2&before=\(cursor)", headers: ada.auth)
            #expect((page2["photos"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [ids[2], ids[1]])
            let (_, sharks) = try await client.send(.get, "/api/v1/groups/\(group.id)/photos?mission=sharks", headers: ada.auth)
            #expect((sharks["photos"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [ids[2]])
            #expect(sharks["next"] == nil || sharks["next"] is NSNull)
            #expect(try await client.send(.get, "/api/v1/groups/\(group.id)/photos?limit=0", headers: ada.auth).0.status == .unprocessableContent)
        }
    }

    @Test("Choosing, deleting: progress follows and unused files are collected")
    func chooseAndDelete() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo"), cy = try await client.newPlayer("Cy")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            _ = try await client.join(group.code, as: cy)
            let first = try TestImages.solid(width: 300, height: 200, rgb: (1, 100, 1), ext: "jpg")
            let second = try TestImages.solid(width: 300, height: 200, rgb: (100, 1, 1), ext: "jpg")
            let (_, a) = try await Self.upload(client, first, as: bo, group: group.id, query: "?mission=sharks&task=shark")
            server.clock.advance(by: 1)
            let (_, b) = try await Self.upload(client, second, as: cy, group: group.id, query: "?mission=sharks&task=shark")
            let firstId = try #require((a["photo"] as? [String: Any])?["id"] as? String)
            let secondId = try #require((b["photo"] as? [String: Any])?["id"] as? String)
            // Each photographer is told where their photo went: Bo's is the task's, Cy's the album's beside it.
            #expect(a["placement"] as? String == "task" && a["taskPhoto"] == nil)
            #expect(b["placement"] as? String == "album")
            #expect(((b["taskPhoto"] as? [String: Any])?["photographer"] as? [String: Any])?["name"] as? String == "Bo")

            func chosen() async throws -> String? {
                let (_, seen) = try await client.send(.get, "/api/v1/groups/\(group.id)", headers: ada.auth)
                let missions = (seen["group"] as? [String: Any])?["missions"] as? [[String: Any]]
                let task = (missions?.first?["tasks"] as? [[String: Any]])?.first
                return (task?["chosenPhoto"] as? [String: Any])?["id"] as? String
            }
            #expect(try await chosen() == firstId, "a later photo joins the album; the teammate's first stays chosen")

            // A photographer who says so replaces the chosen photo, and the group hears who did.
            let third = try TestImages.solid(width: 300, height: 200, rgb: (1, 1, 100), ext: "jpg")
            #expect(try await Self.upload(client, third, as: cy, group: group.id, query: "?choose=true").0.status == .badRequest, "a free photo is no task's")
            #expect(try await Self.upload(client, third, as: cy, group: group.id, query: "?mission=sharks&task=shark&choose=yes").0.status == .badRequest)
            server.clock.advance(by: 1)
            let (_, c) = try await Self.upload(client, third, as: cy, group: group.id, query: "?mission=sharks&task=shark&choose=true")
            let thirdId = try #require((c["photo"] as? [String: Any])?["id"] as? String)
            #expect(try await chosen() == thirdId)
            let events = try await server.database().events(groupId: group.id, after: 0, limit: 100)
            let change = try #require(events.last { $0.kind == .choiceChanged })
            #expect(change.data.contains(#""playerId":"\#(cy.id)""#) && change.data.contains(#""name":"Cy""#), "\(change.data)")

            let choice = "/api/v1/groups/\(group.id)/missions/sharks/tasks/shark/choice"
            #expect(try await client.send(.put, choice, json: #"{"photoId": "\#(firstId)"}"#, headers: bo.auth).0.status == .noContent)
            #expect(try await chosen() == firstId)
            let (wrong, problem) = try await client.send(.put, "/api/v1/groups/\(group.id)/missions/rays/tasks/ray/choice", json: #"{"photoId": "\#(firstId)"}"#, headers: bo.auth)
            #expect(wrong.status == .unprocessableContent)
            #expect(problem["code"] as? String == "photo-not-of-task")

            let (forbidden, _) = try await client.send(.delete, "/api/v1/photos/\(firstId)", headers: cy.auth)
            #expect(forbidden.status == .forbidden, "neither photographer nor creator")
            #expect(try await client.send(.delete, "/api/v1/photos/\(firstId)", headers: bo.auth).0.status == .noContent)
            #expect(try await chosen() == secondId, "the picked photo gone, the task's first again")
            // The creator may not delete a teammate's photo, only hide it from the group.
            let (creator, refusal) = try await client.send(.delete, "/api/v1/photos/\(secondId)", headers: ada.auth)
            #expect(creator.status == .forbidden && refusal["code"] as? String == "creator-may-only-hide")
            #expect(try await client.send(.delete, "/api/v1/photos/\(secondId)", headers: cy.auth).0.status == .noContent, "the photographer may")
            #expect(try await chosen() == thirdId)
            #expect(try await client.send(.delete, "/api/v1/photos/\(thirdId)", headers: cy.auth).0.status == .noContent)
            #expect(try await chosen() == nil)
        }
        #expect(Self.blobFiles(server).isEmpty, "unused files are collected")
    }

    @Test("Erasing a player erases their photos and files")
    func eraseRemovesPhotos() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            _ = try await Self.upload(client, try TestImages.solid(width: 300, height: 300, rgb: (5, 5, 5), ext: "jpg"), as: ada, group: group.id)
            #expect(!Self.blobFiles(server).isEmpty)
            #expect(try await client.send(.delete, "/api/v1/me", headers: ada.auth).0.status == .noContent)
        }
        #expect(try await server.database().counts().photos == 0)
        #expect(Self.blobFiles(server).isEmpty)
    }
}
