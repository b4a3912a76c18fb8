import Foundation
import GroupieCore
@testable import GroupieServer
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

extension MissionEditorTests {
    static func multipart(_ browser: StaffBrowser, _ client: some TestClientProtocol, venue: String = "aquarium",
                          fields: [String: String], file: Data, fileName: String) async throws -> TestResponse {
        let boundary = "groupie-test-boundary"
        var body = Data()
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(fileName)\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
        body += file + Data("\r\n--\(boundary)--\r\n".utf8)
        var headers = browser.headers
        headers[.contentType] = "multipart/form-data; boundary=\(boundary)"
        return try await client.execute(uri: "/staff/venues/\(venue)/missions/pictures", method: .post, headers: headers, body: ByteBuffer(data: body)) { $0 }
    }

    @Test("Pictures are uploaded checked and rebuilt into the venue's own folder; SVG, non-images, other venues and stale tokens are refused")
    func pictures() async throws {
        let server = try await Self.server()
        try await StaffConsoleTests.addStaff(server, "editor@museum.example", .editor, venues: ["museum"])
        let png = try Data(contentsOf: URL(fileURLWithPath: try TestImages.solid(width: 64, height: 64, rgb: (10, 120, 200), ext: "png")))
        try await server.test { client in
            let browser = try #require(try await StaffConsoleTests.signIn(client, "editor@aquarium.example").1)
            let uploaded = try await Self.multipart(browser, client, fields: ["csrf": browser.csrf, "kind": "icons", "name": "My Shark!"], file: png, fileName: "x.png")
            #expect(uploaded.status == .seeOther)
            #expect(uploaded.headers[.location] == "/staff/venues/aquarium/missions/pictures?uploaded=icons%2Faquarium%2Fmy-shark.png")
            let stored = server.assets + "/icons/aquarium/my-shark.png"
            #expect(FileManager.default.fileExists(atPath: stored))
            let (_, page) = try await browser.page(client, "/staff/venues/aquarium/missions/pictures?uploaded=icons/aquarium/my-shark.png")
            #expect(page.contains("icons/aquarium/my-shark.png"))

            let svg = Data(#"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#.utf8)
            let refusedSVG = try await Self.multipart(browser, client, fields: ["csrf": browser.csrf, "kind": "stickers"], file: svg, fileName: "evil.png")
            #expect(refusedSVG.status == .unprocessableContent && String(buffer: refusedSVG.body).contains("SVG"))
            let text = Data(String(repeating: "not a picture ", count: 10).utf8)
            #expect(try await Self.multipart(browser, client, fields: ["csrf": browser.csrf, "kind": "icons"], file: text, fileName: "a.png").status == .unprocessableContent)
            var truncated = png.prefix(png.count / 2)
            truncated.append(contentsOf: [0, 0, 0])
            #expect(try await Self.multipart(browser, client, fields: ["csrf": browser.csrf, "kind": "icons"], file: Data(truncated), fileName: "cut.png").status == .unprocessableContent)
            #expect(try await Self.multipart(browser, client, fields: ["csrf": browser.csrf, "kind": "../../web"], file: png, fileName: "a.png").status == .unprocessableContent)
            #expect(try await Self.multipart(browser, client, fields: ["csrf": "stale", "kind": "icons"], file: png, fileName: "a.png").status == .forbidden)
            let huge = png + Data(count: 3 * 1024 * 1024)
            #expect(try await Self.multipart(browser, client, fields: ["csrf": browser.csrf, "kind": "icons"], file: huge, fileName: "a.png").status == .contentTooLarge)

            let stranger = try #require(try await StaffConsoleTests.signIn(client, "editor@museum.example").1)
            #expect(try await Self.multipart(stranger, client, fields: ["csrf": stranger.csrf, "kind": "icons"], file: png, fileName: "a.png").status == .notFound)
            let names = try FileManager.default.subpathsOfDirectory(atPath: server.assets).filter { !$0.hasPrefix("web") }.sorted()
            #expect(names == ["icons", "icons/aquarium", "icons/aquarium/my-shark.png", "icons/fish.svg"])
        }
    }

    @Test("An admin starts a new venue from the template; it is served, kept as version 1, and its id cannot be taken twice")
    func newVenue() async throws {
        let server = try await Self.server()
        try await StaffConsoleTests.addStaff(server, "admin@example.org", .admin)
        try await server.test { client in
            let editor = try #require(try await StaffConsoleTests.signIn(client, "editor@aquarium.example").1)
            #expect(try await editor.page(client, "/staff/missions/new").0 == .forbidden)
            #expect(try await editor.post(client, "/staff/missions/new", ["id": "zoo", "name": "Zoo", "timezone": "UTC", "languages": "en"]).status == .forbidden)
            let admin = try #require(try await StaffConsoleTests.signIn(client, "admin@example.org").1)
            let (_, venues) = try await admin.page(client, "/staff")
            #expect(venues.contains("/staff/missions/new"))
            let fields = ["id": "city-museum", "name": "The \"City\" Museum", "timezone": "Europe/Helsinki", "languages": "fi, en"]
            let created = try await admin.post(client, "/staff/missions/new", fields)
            #expect(created.status == .seeOther)
            #expect(created.headers[.location] == "/staff/venues/city-museum/missions/edit?saved=1")
            let (status, venue) = try await client.json("/api/v1/venues/city-museum?lang=en")
            #expect(status.status == .ok)
            #expect(venue["name"] as? String == "The \"City\" Museum")
            #expect(try await admin.post(client, "/staff/missions/new", fields).status == .conflict)
            #expect(try await admin.post(client, "/staff/missions/new", ["id": "../x", "name": "X", "timezone": "UTC", "languages": "en"]).status == .unprocessableContent)
            #expect(try FileManager.default.contentsOfDirectory(atPath: server.missions).sorted() == ["aquarium.yaml", "city-museum.yaml", "museum.yaml"])
        }
    }
}

extension MissionEditorTests {
    @Test("A mission removed from the file keeps its collage in the group's album, until one of its photos is deleted")
    func removedMissionKeepsCollage() async throws {
        let server = try await Self.server()
        try await StaffConsoleTests.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let image = try TestImages.solid(width: 600, height: 400, rgb: (200, 40, 40), ext: "jpg")
            let (_, body) = try await PhotoRouteTests.upload(client, image, as: ada, group: group.id, query: "?mission=sharks&task=shark")
            let photoId = try #require((body["photo"] as? [String: Any])?["id"] as? String)
            func collages() async throws -> [String] {
                let (_, album) = try await client.send(.get, "/api/v1/groups/\(group.id)/photos", headers: ada.auth)
                return (album["collages"] as? [[String: Any]] ?? []).filter { $0["status"] as? String == "ready" }.compactMap { $0["missionId"] as? String }
            }
            #expect(try await ReloadTests.eventually { try await collages() == ["sharks"] } != nil, "the sharks' collage made")

            // The file without the sharks (and the rays, which come after them).
            let text = TestServer.aquarium().components(separatedBy: "\n  - id: sharks\n").first! + "\n  - id: new\n    title: New\n    icon: icons/fish.svg\n    tasks:\n      - id: one\n        prompt: One\n"
            let browser = try #require(try await StaffConsoleTests.signIn(client, "editor@aquarium.example").1)
            let base = try await Self.open(browser, client)
            #expect(try await browser.post(client, "/staff/venues/aquarium/missions/save", ["text": text, "base": base, "confirm": "yes"]).status == .seeOther)
            #expect(try await collages() == ["sharks"], "the collage stays in the album")

            let moderator = try #require(try await StaffConsoleTests.signIn(client, "mod@aquarium.example").1)
            #expect(try await moderator.post(client, "/staff/photos/\(photoId)/delete", ["reason": "test", "confirm": "yes"]).status == .seeOther)
            #expect(try await collages().isEmpty, "a collage never shows a deleted photo")
        }
    }
}

extension MissionEditorTests {
    @Test("A backup keeps the versions saved from the console, and a restore brings them back")
    func backupKeepsVersions() async throws {
        let server = try await Self.server()
        try await server.test { client in
            let browser = try #require(try await StaffConsoleTests.signIn(client, "editor@aquarium.example").1)
            let base = try await Self.open(browser, client)
            #expect(try await browser.post(client, "/staff/venues/aquarium/missions/save", ["text": TestServer.aquarium(title: "Hajarna"), "base": base]).status == .seeOther)
        }
        let data = server.configuration.dataDirectory, backup = server.root + "/backup", restored = server.root + "/restored"
        let first = try await CommandLineTests.run(["backup", backup, "--data", data])
        #expect(first.status == 0)
        // A new backup copies every file, the saved versions and the key among them, and says so.
        let counts = try #require(first.output.firstMatch(of: /: (\d+) files, (\d+) copied/), "\(first.output)")
        #expect(counts.1 == counts.2, "\(first.output)")
        let again = try await CommandLineTests.run(["backup", backup, "--data", data])
        #expect(again.output.contains(" files, 1 copied"), "only the database again: \(again.output)")
        // The versions' index changed in place, at the same size, is copied again.
        let saved = data + "/mission-history/aquarium/index.json"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: saved))
        let last = try #require(bytes.indices.last { bytes[$0] != UInt8(ascii: " ") && bytes[$0] != UInt8(ascii: "\n") && bytes[$0] != UInt8(ascii: "}") })
        bytes[last] = bytes[last] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
        try bytes.write(to: URL(fileURLWithPath: saved))
        let changed = try await CommandLineTests.run(["backup", backup, "--data", data])
        #expect(changed.output.contains(" files, 2 copied"), "the database and the changed version: \(changed.output)")
        #expect(try await CommandLineTests.run(["restore", backup, "--data", restored]).status == 0)
        #expect(try String(contentsOfFile: restored + "/mission-history/aquarium/000002.yaml", encoding: .utf8) == TestServer.aquarium(title: "Hajarna"))
        #expect(FileManager.default.fileExists(atPath: restored + "/mission-history/aquarium/index.json"))
    }
}
