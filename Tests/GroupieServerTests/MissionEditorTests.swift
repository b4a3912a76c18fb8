import Foundation
import GRDB
import GroupieCore
@testable import GroupieServer
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The mission file edited in the browser: saved atomically only without problems and over the
/// version opened, kept as versions, restored, and refused to anyone who may not edit it.
@Suite("Mission editor")
struct MissionEditorTests {
    static func server() async throws -> TestServer {
        let server = try StaffConsoleTests.server()
        try await StaffConsoleTests.addStaff(server, "editor@aquarium.example", .editor, venues: ["aquarium"])
        return server
    }

    static func hidden(_ name: String, in html: String) -> String? {
        guard let range = html.range(of: #"name="\#(name)" value=""#) else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    static func file(_ server: TestServer, _ name: String = "aquarium.yaml") throws -> String {
        try String(contentsOfFile: server.missions + "/" + name, encoding: .utf8)
    }

    static func inode(_ path: String) -> UInt64 {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_ino) : 0
    }

    /// Opens the editor and returns the version of the file it was opened on.
    static func open(_ browser: StaffBrowser, _ client: some TestClientProtocol, venue: String = "aquarium") async throws -> String {
        let (status, html) = try await browser.page(client, "/staff/venues/\(venue)/missions/edit")
        #expect(status == .ok)
        return try #require(hidden("base", in: html))
    }

    @Test("The audit line of a save is written before the file: a save whose line cannot be written changes nothing")
    func auditFirst() async throws {
        let server = try await Self.server()
        let before = try Self.file(server)
        let edited = TestServer.aquarium(title: "Hajarna")
        try await server.test { client in
            let browser = try #require(try await StaffConsoleTests.signIn(client, "editor@aquarium.example").1)
            let base = try await Self.open(browser, client)
            // The database refuses every audit line, as a full or broken one would.
            let queue = try DatabaseQueue(path: server.configuration.dataDirectory + "/groupie.sqlite")
            try await queue.write { try $0.execute(sql: "CREATE TRIGGER refuse_audit BEFORE INSERT ON staff_audit BEGIN SELECT RAISE(ABORT, 'no audit'); END") }
            let refused = try await browser.post(client, "/staff/venues/aquarium/missions/save", ["text": edited, "base": base])
            #expect(refused.status.code >= 500)
            #expect(try Self.file(server) == before, "the file is as it was")
            #expect(!FileManager.default.fileExists(atPath: server.configuration.dataDirectory + "/mission-history/aquarium/000002.yaml"))
            try await queue.write { try $0.execute(sql: "DROP TRIGGER refuse_audit") }
            let saved = try await browser.post(client, "/staff/venues/aquarium/missions/save", ["text": edited, "base": base])
            #expect(saved.headers[.location] == "/staff/venues/aquarium/missions/edit?saved=2")
            #expect(try Self.file(server) == edited)
            let lines = try await queue.read { try String.fetchAll($0, sql: "SELECT action || ': ' || subject FROM staff_audit WHERE action LIKE 'missions%'") }
            #expect(lines == ["missions saved: version 2"])
        }
    }

    @Test("A save writes the file by renaming a synced copy, puts it live and keeps both versions with who saved it")
    func save() async throws {
        let server = try await Self.server()
        let before = try Self.file(server)
        let edited = TestServer.aquarium(title: "Hajarna")
        try await server.test { client in
            let browser = try #require(try await StaffConsoleTests.signIn(client, "editor@aquarium.example").1)
            let base = try await Self.open(browser, client)
            let inode = Self.inode(server.missions + "/aquarium.yaml")
            // As a browser sends a text area: its line breaks as CRLF; the file gets the file's own.
            let sent = edited.replacingOccurrences(of: "\n", with: "\r\n")
            let response = try await browser.post(client, "/staff/venues/aquarium/missions/save", ["text": sent, "base": base])
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/staff/venues/aquarium/missions/edit?saved=2")
            #expect(try Self.file(server) == edited)
            #expect(Self.inode(server.missions + "/aquarium.yaml") != inode, "written beside and renamed, never in place")
            #expect(try FileManager.default.contentsOfDirectory(atPath: server.missions).sorted() == ["aquarium.yaml", "museum.yaml"])

            let (_, venue) = try await client.json("/api/v1/venues/aquarium?lang=sv")
            #expect((venue["missions"] as? [[String: Any]])?.first?["title"] as? String == "Hajarna")

            let history = server.configuration.dataDirectory + "/mission-history/aquarium"
            #expect(try String(contentsOfFile: history + "/000001.yaml", encoding: .utf8) == before)
            #expect(try String(contentsOfFile: history + "/000002.yaml", encoding: .utf8) == edited)
            let (status, page) = try await browser.page(client, "/staff/venues/aquarium/missions/versions")
            #expect(status == .ok && page.contains("editor@aquarium.example") && page.contains("as found on disk"))
            #expect(page.contains("Europe/Stockholm"))
            let (_, saved) = try await browser.page(client, "/staff/venues/aquarium/missions/edit?saved=2")
            #expect(saved.contains("Saved as version 2"))
            let (_, audit) = try await browser.page(client, "/staff/audit")
            #expect(audit.contains("missions saved"))
        }
    }

    @Test("A text with problems is not saved, and its problems are shown at their line and column")
    func problemsRefuse() async throws {
        let server = try await Self.server()
        let before = try Self.file(server)
        let broken = TestServer.aquarium().replacingOccurrences(of: "icon: icons/fish.svg\n    fact", with: "icon: icons/fish.svg\n    fakt")
        try await server.test { client in
            let browser = try #require(try await StaffConsoleTests.signIn(client, "editor@aquarium.example").1)
            let base = try await Self.open(browser, client)
            let response = try await browser.post(client, "/staff/venues/aquarium/missions/save", ["text": broken, "base": base])
            #expect(response.status == .unprocessableContent)
            let html = String(buffer: response.body)
            #expect(html.contains(#"data-line="17""#) && html.contains("fakt"))
            #expect(try Self.file(server) == before)
            #expect(!FileManager.default.fileExists(atPath: server.configuration.dataDirectory + "/mission-history/aquarium"))

            // The check while typing answers the same problems as JSON.
            var headers = browser.headers
            headers[.contentType] = "application/x-www-form-urlencoded"
            let body = StaffConsoleTests.form(["csrf": browser.csrf, "text": broken, "line": "3"])
            let (status, json) = try await client.execute(uri: "/staff/venues/aquarium/missions/check", method: .post, headers: headers, body: ByteBuffer(string: body)) {
                ($0.status, try JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any])
            }
            #expect(status == .ok)
            let problems = try #require(json?["problems"] as? [[String: Any]])
            #expect(problems.first?["line"] as? Int == 17 && (problems.first?["message"] as? String)?.contains("fakt") == true)

            // A valid text: the mission at the cursor, in each language, with its reward drawn from the draft.
            let valid = StaffConsoleTests.form(["csrf": browser.csrf, "text": TestServer.aquarium(title: "Hajarna"), "line": "15"])
            let (_, answer) = try await client.execute(uri: "/staff/venues/aquarium/missions/check", method: .post, headers: headers, body: ByteBuffer(string: valid)) {
                ($0.status, try JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any])
            }
            #expect((answer?["problems"] as? [Any])?.isEmpty == true)
            let mission = try #require(answer?["mission"] as? [String: Any])
            #expect(mission["id"] as? String == "sharks")
            let cards = try #require(mission["languages"] as? [[String: Any]])
            #expect(cards.map { $0["title"] as? String } == ["Hajarna", "Sharks"])
            let picture = try #require(cards.first?["picture"] as? String)
            let (pictureStatus, _) = try await browser.page(client, picture)
            #expect(pictureStatus == .ok)
        }
    }

    @Test("A save over a file changed on disk is refused and shows both; keeping one's own then saves over it")
    func conflict() async throws {
        let server = try await Self.server()
        let onDisk = TestServer.aquarium(title: "Changed in git")
        let mine = TestServer.aquarium(title: "Mine")
        try await server.test { client in
            let browser = try #require(try await StaffConsoleTests.signIn(client, "editor@aquarium.example").1)
            let base = try await Self.open(browser, client)
            try server.write("aquarium.yaml", onDisk)
            let refused = try await browser.post(client, "/staff/venues/aquarium/missions/save", ["text": mine, "base": base])
            #expect(refused.status == .conflict)
            let html = String(buffer: refused.body)
            #expect(html.contains("changed on disk") && html.contains("Changed in git") && html.contains("Mine"))
            #expect(try Self.file(server) == onDisk)
            let diskHash = try #require(html.range(of: #"id="keep-mine""#).flatMap { _ in Self.hidden("base", in: html) })
            #expect(diskHash != base)
            let kept = try await browser.post(client, "/staff/venues/aquarium/missions/save", ["text": mine, "base": diskHash])
            #expect(kept.status == .seeOther)
            #expect(try Self.file(server) == mine)
        }
    }

    @Test("A previous version is restored as a new one, and the differences between two are shown")
    func restore() async throws {
        let server = try await Self.server()
        let before = try Self.file(server)
        try await server.test { client in
            let browser = try #require(try await StaffConsoleTests.signIn(client, "editor@aquarium.example").1)
            let base = try await Self.open(browser, client)
            #expect(try await browser.post(client, "/staff/venues/aquarium/missions/save", ["text": TestServer.aquarium(title: "Hajarna"), "base": base]).status == .seeOther)
            let (_, diff) = try await browser.page(client, "/staff/venues/aquarium/missions/versions/diff?from=1&to=2")
            #expect(diff.contains("<td class=\"sign\">−</td><td><code>      sv: Hajar</code>") && diff.contains("<td class=\"sign\">+</td><td><code>      sv: Hajarna</code>"))
            let (_, versions) = try await browser.page(client, "/staff/venues/aquarium/missions/versions")
            let current = try #require(Self.hidden("base", in: versions))
            let restored = try await browser.post(client, "/staff/venues/aquarium/missions/versions/1/restore", ["base": current])
            #expect(restored.status == .seeOther)
            #expect(try Self.file(server) == before)
            let (_, after) = try await browser.page(client, "/staff/venues/aquarium/missions/versions")
            #expect(after.contains("restores version 1") && after.contains(#"id="version-3""#))
            #expect(try await browser.page(client, "/staff/venues/aquarium/missions/versions/diff?from=1&to=9").0 == .notFound)
        }
    }

    @Test("Only an editor or admin of the venue writes its file: other roles, other venues, stale tokens and odd ids change nothing")
    func roles() async throws {
        let server = try await Self.server()
        try await StaffConsoleTests.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        try await StaffConsoleTests.addStaff(server, "editor@museum.example", .editor, venues: ["museum"])
        try await StaffConsoleTests.addStaff(server, "admin@example.org", .admin)
        let before = try Self.file(server)
        let edited = TestServer.aquarium(title: "Hostile")
        try await server.test { client in
            let owner = try #require(try await StaffConsoleTests.signIn(client, "editor@aquarium.example").1)
            let base = try await Self.open(owner, client)
            let moderator = try #require(try await StaffConsoleTests.signIn(client, "mod@aquarium.example").1)
            #expect(try await moderator.post(client, "/staff/venues/aquarium/missions/save", ["text": edited, "base": base]).status == .forbidden)
            #expect(try await moderator.page(client, "/staff/venues/aquarium/missions/edit").0 == .forbidden)
            let stranger = try #require(try await StaffConsoleTests.signIn(client, "editor@museum.example").1)
            #expect(try await stranger.post(client, "/staff/venues/aquarium/missions/save", ["text": edited, "base": base]).status == .notFound)
            #expect(try await stranger.post(client, "/staff/venues/aquarium/missions/versions/1/restore", ["base": base]).status == .notFound)
            #expect(try await stranger.post(client, "/staff/venues/..%2Faquarium/missions/save", ["text": edited, "base": base]).status == .notFound)
            #expect(try await owner.post(client, "/staff/venues/aquarium/missions/save", ["text": edited, "base": base], csrf: "stale").status == .forbidden)
            // A text past the file's bound is refused like any file that large.
            let huge = edited + "\n#" + String(repeating: "x", count: 4 * 1024 * 1024)
            #expect(try await owner.post(client, "/staff/venues/aquarium/missions/save", ["text": huge, "base": base]).status == .unprocessableContent)
            #expect(try Self.file(server) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: server.missions).sorted() == ["aquarium.yaml", "museum.yaml"])

            let admin = try #require(try await StaffConsoleTests.signIn(client, "admin@example.org").1)
            #expect(try await admin.post(client, "/staff/venues/aquarium/missions/save", ["text": edited, "base": base]).status == .seeOther)
            #expect(try Self.file(server) == edited)
        }
    }

    @Test("Renaming a task groups have photos under warns, naming the groups and photos, and the photos stay in the album")
    func droppedTaskWarns() async throws {
        let server = try await Self.server()
        let before = try Self.file(server)
        let renamed = TestServer.aquarium().replacingOccurrences(of: "- id: shark\n", with: "- id: great-white\n")
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let image = try TestImages.solid(width: 300, height: 200, rgb: (200, 40, 40), ext: "jpg")
            let (uploaded, body) = try await PhotoRouteTests.upload(client, image, as: ada, group: group.id, query: "?mission=sharks&task=shark")
            #expect(uploaded.status == .created)
            let photoId = try #require((body["photo"] as? [String: Any])?["id"] as? String)

            let browser = try #require(try await StaffConsoleTests.signIn(client, "editor@aquarium.example").1)
            let base = try await Self.open(browser, client)
            let warned = try await browser.post(client, "/staff/venues/aquarium/missions/save", ["text": renamed, "base": base])
            #expect(warned.status == .conflict)
            let html = String(buffer: warned.body)
            #expect(html.contains("Groups have photos under tasks this version no longer has"))
            #expect(html.contains("sharks / shark: 1 photo") && html.contains("/staff/groups/\(group.id)"))
            #expect(try Self.file(server) == before)

            let confirmed = try await browser.post(client, "/staff/venues/aquarium/missions/save", ["text": renamed, "base": base, "confirm": "yes"])
            #expect(confirmed.status == .seeOther)
            #expect(try Self.file(server) == renamed)
            let (_, album) = try await client.send(.get, "/api/v1/groups/\(group.id)/photos", headers: ada.auth)
            #expect((album["photos"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [photoId])
        }
    }
}
