import Foundation
import GroupieStorage
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import GroupieServer

@Suite("Collages and album downloads")
struct CollageRouteTests {
    static let reef = """
          - id: reef
            title: { sv: Revet, en: The reef }
            icon: icons/fish.svg
            style: grid
            tasks:
              - id: red
                prompt: { sv: Något rött, en: Something red }
              - id: green
                prompt: { sv: Något grönt, en: Something green }
              - id: blue
                prompt: { sv: Något blått, en: Something blue }
        """
    static let colours: [(Int, Int, Int)] = [(220, 40, 40), (40, 180, 60), (40, 80, 220)]

    static func server() throws -> TestServer {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium(extraMission: reef))
        return server
    }

    static func document(_ client: some TestClientProtocol, group: String, as player: TestPlayer) async throws -> [String: Any] {
        let (_, body) = try await client.send(.get, "/api/v1/groups/\(group)", headers: player.auth)
        return try #require(body["group"] as? [String: Any])
    }

    static func reefCollage(_ document: [String: Any]) -> [String: Any]? {
        ((document["missions"] as? [[String: Any]])?.first { $0["id"] as? String == "reef" })?["collage"] as? [String: Any]
    }

    static func events(_ server: TestServer, group: String) async throws -> [String] {
        try await server.database().events(groupId: group, after: 0, limit: 1000).map(\.kind.rawValue)
    }

    /// Uploads a solid photo of each colour for the reef's three tasks; returns the photo ids.
    static func completeReef(_ client: some TestClientProtocol, as player: TestPlayer, group: String) async throws -> [String] {
        var ids: [String] = []
        for (task, colour) in zip(["red", "green", "blue"], colours) {
            let image = try TestImages.solid(width: 900, height: 600, rgb: colour, ext: "jpg")
            let (response, body) = try await PhotoRouteTests.upload(client, image, as: player, group: group, query: "?mission=reef&task=\(task)")
            #expect(response.status == .created)
            ids.append(try #require((body["photo"] as? [String: Any])?["id"] as? String))
        }
        return ids
    }

    static func collageFiles(_ server: TestServer, group: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: server.configuration.dataDirectory + "/collages/" + group)) ?? []).sorted()
    }

    @Test("A completed mission's collage is made in the background, announced, listed, and served as JPEG and PNG")
    func lifecycle() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo"), eve = try await client.newPlayer("Eve")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)

            // Not complete, unknown mission, stranger.
            var (response, problem) = try await client.send(.get, "/api/v1/groups/\(group.id)/missions/reef/collage.jpg", headers: ada.auth)
            #expect(response.status == .conflict)
            #expect(problem["code"] as? String == "mission-incomplete")
            #expect((problem["detail"] as? String)?.contains("3 tasks") == true)
            (response, problem) = try await client.send(.get, "/api/v1/groups/\(group.id)/missions/no-such/collage.jpg", headers: ada.auth)
            #expect(response.status == .notFound)
            #expect(problem["code"] as? String == "mission-not-found")
            (response, _) = try await client.send(.get, "/api/v1/groups/\(group.id)/missions/reef/collage.jpg", headers: eve.auth)
            #expect(response.status == .notFound)
            #expect(Self.reefCollage(try await Self.document(client, group: group.id, as: ada)) == nil)

            _ = try await Self.completeReef(client, as: bo, group: group.id)
            let ready = try await ReloadTests.eventually {
                Self.reefCollage(try await Self.document(client, group: group.id, as: ada))?["status"] as? String == "ready"
            }
            #expect(ready != nil, "the collage is made without anyone asking for it")
            #expect(try await Self.events(server, group: group.id).contains("collage-ready"))
            let collage = try #require(Self.reefCollage(try await Self.document(client, group: group.id, as: ada)))
            let urls = try #require(collage["urls"] as? [String: String])
            #expect(max(collage["width"] as? Int ?? 0, collage["height"] as? Int ?? 0) == 2048)

            // The signed URL works without the token; a tampered one does not.
            let (status, jpeg) = try await PhotoRouteTests.bytes(client, try #require(urls["jpg"]))
            #expect(status == .ok)
            #expect(jpeg.starts(with: [0xFF, 0xD8, 0xFF]))
            let path = TestImages.folder + "/served-\(UUID().uuidString).jpg"
            try jpeg.write(to: URL(fileURLWithPath: path))
            let size = try TestImages.header(path)
            #expect(size.width == collage["width"] as? Int && size.height == collage["height"] as? Int)
            let (tampered, _) = try await PhotoRouteTests.bytes(client, try #require(urls["jpg"]).replacingOccurrences(of: "sig=", with: "sig=0"))
            #expect(tampered == .unauthorized)

            let (pngStatus, png) = try await PhotoRouteTests.bytes(client, "/api/v1/groups/\(group.id)/missions/reef/collage.png?size=512", headers: ada.auth)
            #expect(pngStatus == .ok)
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            let pngPath = TestImages.folder + "/served-\(UUID().uuidString).png"
            try png.write(to: URL(fileURLWithPath: pngPath))
            let pngSize = try TestImages.header(pngPath)
            #expect(max(pngSize.width, pngSize.height) == 512)
            (response, problem) = try await client.send(.get, "/api/v1/groups/\(group.id)/missions/reef/collage.jpg?size=100000", headers: ada.auth)
            #expect(response.status == .unprocessableContent)
            #expect(problem["code"] as? String == "invalid-size")

            // In the album, beside the photos.
            let (_, album) = try await client.send(.get, "/api/v1/groups/\(group.id)/photos", headers: ada.auth)
            let listed = try #require(album["collages"] as? [[String: Any]])
            #expect(listed.map { $0["missionId"] as? String } == ["reef"])
            #expect(!Self.collageFiles(server, group: group.id).contains { $0.hasSuffix(".tmp") })
        }
    }

    @Test("Changing a chosen photo makes the collage again; deleting one withdraws it and its files")
    func remakeAndWithdraw() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let ids = try await Self.completeReef(client, as: ada, group: group.id)
            #expect(try await ReloadTests.eventually {
                Self.reefCollage(try await Self.document(client, group: group.id, as: ada))?["status"] as? String == "ready"
            } != nil)
            let firstFiles = Self.collageFiles(server, group: group.id)
            #expect(firstFiles.count == 1)

            // A second red photo, chosen: a new collage replaces the first.
            let another = try TestImages.solid(width: 600, height: 900, rgb: (250, 120, 120), ext: "jpg")
            let (_, uploaded) = try await PhotoRouteTests.upload(client, another, as: ada, group: group.id, query: "?mission=reef&task=red")
            let anotherId = try #require((uploaded["photo"] as? [String: Any])?["id"] as? String)
            let (picked, _) = try await client.send(.put, "/api/v1/groups/\(group.id)/missions/reef/tasks/red/choice", json: #"{"photoId": "\#(anotherId)"}"#, headers: ada.auth)
            #expect(picked.status == .noContent)
            #expect(try await ReloadTests.eventually {
                let files = Self.collageFiles(server, group: group.id)
                return files.count == 1 && files != firstFiles
            } != nil, "the old picture's file goes when the new one is made")

            // Choosing the first red photo again brings back the first picture's inputs.
            let (chose, _) = try await client.send(.put, "/api/v1/groups/\(group.id)/missions/reef/tasks/red/choice", json: #"{"photoId": "\#(ids[0])"}"#, headers: ada.auth)
            #expect(chose.status == .noContent)
            #expect(try await ReloadTests.eventually { Self.collageFiles(server, group: group.id) == firstFiles } != nil)

            // Deleting the only blue photo: the mission is no longer complete.
            let (deleted, _) = try await client.send(.delete, "/api/v1/photos/\(ids[2])", headers: ada.auth)
            #expect(deleted.status == .noContent)
            #expect(try await ReloadTests.eventually { Self.collageFiles(server, group: group.id).isEmpty } != nil)
            #expect(try await Self.events(server, group: group.id).contains("collage-removed"))
            #expect(Self.reefCollage(try await Self.document(client, group: group.id, as: ada)) == nil)
            let (_, album) = try await client.send(.get, "/api/v1/groups/\(group.id)/photos", headers: ada.auth)
            #expect((album["collages"] as? [Any])?.isEmpty == true)
            let (response, problem) = try await client.send(.get, "/api/v1/groups/\(group.id)/missions/reef/collage.jpg", headers: ada.auth)
            #expect(response.status == .conflict)
            #expect(problem["code"] as? String == "mission-incomplete")
        }
    }

    @Test("album.zip holds every photo without location data and every collage, in folders by mission")
    func albumZip() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo"), eve = try await client.newPlayer("Eve")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            _ = try await Self.completeReef(client, as: bo, group: group.id)
            let located = try TestImages.jpegWithEXIF(width: 800, height: 600, orientation: 1)
            _ = try await PhotoRouteTests.upload(client, located, as: ada, group: group.id, query: "?mission=sharks&task=shark")
            _ = try await PhotoRouteTests.upload(client, located, as: ada, group: group.id)
            #expect(try await ReloadTests.eventually {
                let (_, album) = try await client.send(.get, "/api/v1/groups/\(group.id)/photos", headers: ada.auth)
                return (album["collages"] as? [Any])?.count == 2
            } != nil)

            // Strangers get nothing; a stream token works in place of the bearer header.
            let (refused, _) = try await PhotoRouteTests.bytes(client, "/api/v1/groups/\(group.id)/album.zip", headers: eve.auth)
            #expect(refused == .notFound)
            let (_, token) = try await client.send(.post, "/api/v1/groups/\(group.id)/events/token", headers: ada.auth)
            let streamToken = try #require(token["token"] as? String)
            let (status, zip) = try await PhotoRouteTests.bytes(client, "/api/v1/groups/\(group.id)/album.zip?token=\(streamToken)", headers: [.acceptLanguage: "en"])
            #expect(status == .ok)
            let path = TestImages.folder + "/album-\(UUID().uuidString).zip"
            try zip.write(to: URL(fileURLWithPath: path))
            let listing = try Self.python(["-c", """
                import sys, zipfile
                z = zipfile.ZipFile(sys.argv[1])
                assert z.testzip() is None
                for info in z.infolist():
                    data = z.read(info)
                    gps = bytes([57, 0, 0, 0, 1, 0, 0, 0, 42, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]) in data
                    print(info.filename + ("\\tGPS" if gps else ""))
                """, path])
            let names = listing.split(separator: "\n").map(String.init)
            #expect(names.contains("01 Sharks/Photograph a shark - Ada.jpg"))
            #expect(names.contains("01 Sharks/Sharks - collage.jpg"))
            #expect(names.contains("03 The reef/Something red - Bo.jpg"))
            #expect(names.contains("03 The reef/The reef - collage.jpg"))
            #expect(names.contains("Other photos/photo - Ada.jpg"))
            #expect(names.count == 7)
            #expect(!names.contains { $0.hasSuffix("GPS") }, "no location data in the download")
        }
    }

    static func python(_ arguments: [String]) throws -> String {
        let result = try ChildProcess.run(command: "python3", arguments)
        guard result.status == 0 else { throw TestFailure("python failed: \(result.output)") }
        return result.output
    }
}

extension CollageRouteTests {
    @Test("A photo's file gone when the collage is made: 503, nothing half-written, not drawn again per request, made later once the file is back")
    func photoFileGone() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            _ = try await Self.completeReef(client, as: ada, group: group.id)
            #expect(try await ReloadTests.eventually { Self.collageFiles(server, group: group.id).count == 1 } != nil)
            // Another size is made on demand, from the display derivatives, one of which is now gone.
            let display = try #require(PhotoRouteTests.blobFiles(server).first { $0.hasSuffix("-display.jpg") })
            let path = server.configuration.dataDirectory + "/blobs/" + display
            let saved = path + ".saved"
            try FileManager.default.moveItem(atPath: path, toPath: saved)
            let (response, problem) = try await client.send(.get, "/api/v1/groups/\(group.id)/missions/reef/collage.jpg?size=700", headers: ada.auth)
            #expect(response.status == .serviceUnavailable)
            #expect(problem["code"] as? String == "collage-unavailable")
            #expect(Self.collageFiles(server, group: group.id).count == 1, "no file, whole or half, for the failed picture")
            try FileManager.default.moveItem(atPath: saved, toPath: path)
            // A failed picture is remembered: asked again at once, it is not drawn again.
            let (again, retryAfter) = try await client.execute(uri: "/api/v1/groups/\(group.id)/missions/reef/collage.jpg?size=700", method: .get, headers: ada.auth) {
                ($0.status, $0.headers[.retryAfter].flatMap { Int($0) })
            }
            #expect(again == .serviceUnavailable)
            #expect((500...600).contains(retryAfter ?? 0))
            server.clock.advance(by: CollageService.failureMemory + 1)
            let (status, _) = try await PhotoRouteTests.bytes(client, "/api/v1/groups/\(group.id)/missions/reef/collage.jpg?size=700", headers: ada.auth)
            #expect(status == .ok)
            #expect(Self.collageFiles(server, group: group.id).count == 2)
        }
    }
}

extension CollageRouteTests {
    @Test("Pictures a crash left half-written are removed at start; those another running instance is drawing stay")
    func leftovers() async throws {
        var server = try Self.server()
        // Instances share a data folder on PostgreSQL only: on SQLite a second one is refused.
        server.configuration.databaseURL = try await TestPostgres.freshDatabase()
        let folder = server.configuration.dataDirectory + "/collages/some-group"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Another instance on the same data folder, running, and one that crashed.
        let running = try BlobStore(directory: server.configuration.dataDirectory + "/blobs")
        let drawing = "reef-0123456789abcdef01234567-700.jpg.\(running.temporary.instance).\(UUID().uuidString).tmp"
        try Data("drawing".utf8).write(to: URL(fileURLWithPath: folder + "/" + drawing))
        try Data("half".utf8).write(to: URL(fileURLWithPath: folder + "/reef-0123456789abcdef01234567-2048.jpg.1234.tmp"))
        try Data("half".utf8).write(to: URL(fileURLWithPath: folder + "/reef-0123456789abcdef01234567-1024.jpg.\(UUID().uuidString.lowercased()).\(UUID().uuidString).tmp"))
        try Data("whole".utf8).write(to: URL(fileURLWithPath: folder + "/reef-0123456789abcdef01234567-2048.jpg"))
        try await server.test { client in
            _ = try await client.send(.get, "/healthz")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == [drawing, "reef-0123456789abcdef01234567-2048.jpg"].sorted())
        withExtendedLifetime(running) {}
    }
}

extension CollageRouteTests {
    @Test("Where a photo's subject is is found after the upload is answered, and kept with the photo")
    func focusStored() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let image = try TestImages.solid(width: 640, height: 480, rgb: (200, 30, 30), ext: "jpg")
            let (_, body) = try await PhotoRouteTests.upload(client, image, as: ada, group: group.id, query: "?mission=reef&task=red")
            let id = try #require((body["photo"] as? [String: Any])?["id"] as? String)
            let database = try server.database()
            #expect(try await ReloadTests.eventually { try await database.photo(id: id)?.focus != nil } != nil)
            let focus = try #require(try await database.photo(id: id)?.focus)
            #expect((0...1).contains(focus.x) && (0...1).contains(focus.y))
        }
    }
}
