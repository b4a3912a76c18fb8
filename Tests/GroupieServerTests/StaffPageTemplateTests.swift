import Foundation
import GroupieCore
@testable import GroupieServer
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The staff console's pages and the join page, drawn from templates that escape by default, and
/// the staff console's links, each id one percent-encoded segment.
@Suite("Staff pages from templates")
struct StaffPageTemplateTests {
    static let hostile = #"<script>alert(1)</script>"'&"#
    static let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"

    @Test("StaffURL writes an id with /, ?, #, & and spaces as one segment, and plain ids as they are")
    func urlEncoding() throws {
        let id = "a/b?c#d e&f"
        let encoded = "a%2Fb%3Fc%23d%20e%26f"
        #expect(StaffURL.venue(id).path == "/staff/venues/\(encoded)")
        #expect(StaffURL.group(id).path == "/staff/groups/\(encoded)")
        #expect(StaffURL.groupClose(id).path == "/staff/groups/\(encoded)/close")
        #expect(StaffURL.review(venueId: id).path == "/staff/venues/\(encoded)/review")
        #expect(StaffURL.photoHide(id).path == "/staff/photos/\(encoded)/hide")
        #expect(StaffURL.photoThumb(id).path == "/staff/photos/\(encoded)/thumb")
        #expect(StaffURL.groupPhoto(groupId: id, photoId: id).path == "/staff/groups/\(encoded)#photo-\(encoded)")
        #expect(StaffURL.reward(venueId: "aquarium", missionId: id, language: "sv", version: id).path
            == "/staff/venues/aquarium/missions/\(encoded)/reward.jpg?lang=sv&v=\(encoded)")
        #expect(StaffURL.phonePreview(venueId: id, language: "sv").path == "/?preview=\(encoded)&lang=sv#/missions")
        #expect(StaffURL.venue("åäö").path == "/staff/venues/%C3%A5%C3%A4%C3%B6")

        // Read back as a browser would: the id is one segment, with no query or fragment of its own.
        for url in [StaffURL.venue(id), .group(id), .photoDelete(id), .numbers(venueId: id)] {
            let components = try #require(URLComponents(string: url.path))
            #expect(components.query == nil && components.fragment == nil, "\(url.path)")
            #expect(components.percentEncodedPath.split(separator: "/").contains { $0.removingPercentEncoding == id }, "\(url.path)")
        }
        let reward = try #require(URLComponents(string: StaffURL.reward(venueId: id, missionId: "m", language: "s v", version: "#1").path))
        #expect(reward.queryItems?.map(\.value) == ["s v", "#1"] && reward.fragment == nil)

        #expect(StaffURL.venue("aquarium").path == "/staff/venues/aquarium")
        #expect(StaffURL.numbersTable(venueId: "aquarium", table: "days").path == "/staff/venues/aquarium/numbers/days.csv")
        #expect(StaffURL.poster(venueId: "aquarium", paper: "a3", format: "png").path == "/staff/venues/aquarium/poster.png?paper=a3")
        #expect(StaffURL.groupPhoto(groupId: "g1", photoId: "p1").path == "/staff/groups/g1#photo-p1")
    }

    /// One name per case of `StaffURL`: the switch below is exhaustive, so a new case does not
    /// compile until it has a name here, and the test then fails until it has an example.
    enum URLCase: CaseIterable {
        case home, login, logout, audit, accounts, accountRole, accountUnlock, accountRemove, password, venue, review, numbers, numbersTable, missions, reward, editor, editorCheck, editorSave, draftReward, versions, versionsDiff, versionRestore, newVenue, pictures, picturesUploaded, poster, cards, codeStickers, events, messages, wall, groupPhotos, venuePhotos, feed, wallItems, collage, group, groupPhoto, groupClose, groupReopen, photoThumb, photoDisplay, photoHide, photoRestore, photoDelete, phonePreview

        init(_ url: StaffURL) {
            self = switch url {
        case .home: .home
        case .login: .login
        case .logout: .logout
        case .audit: .audit
        case .accounts: .accounts
        case .accountRole: .accountRole
        case .accountUnlock: .accountUnlock
        case .accountRemove: .accountRemove
        case .password: .password
        case .venue: .venue
        case .review: .review
        case .numbers: .numbers
        case .numbersTable: .numbersTable
        case .missions: .missions
        case .reward: .reward
        case .editor: .editor
        case .editorCheck: .editorCheck
        case .editorSave: .editorSave
        case .draftReward: .draftReward
        case .versions: .versions
        case .versionsDiff: .versionsDiff
        case .versionRestore: .versionRestore
        case .newVenue: .newVenue
        case .pictures: .pictures
        case .picturesUploaded: .picturesUploaded
        case .poster: .poster
        case .cards: .cards
        case .codeStickers: .codeStickers
        case .events: .events
        case .messages: .messages
        case .wall: .wall
        case .groupPhotos: .groupPhotos
        case .venuePhotos: .venuePhotos
        case .feed: .feed
        case .wallItems: .wallItems
        case .collage: .collage
        case .group: .group
        case .groupPhoto: .groupPhoto
        case .groupClose: .groupClose
        case .groupReopen: .groupReopen
        case .photoThumb: .photoThumb
        case .photoDisplay: .photoDisplay
        case .photoHide: .photoHide
        case .photoRestore: .photoRestore
        case .photoDelete: .photoDelete
        case .phonePreview: .phonePreview
            }
        }
    }

    @Test("Every StaffURL names a route of the router, and every case of it is tried")
    func urlsAreRoutes() async throws {
        let server = try StaffConsoleTests.server()
        let routes = try await GroupieRoutes.describe(server.configuration).map { $0.path.split(separator: "/").map(String.init) }
        let urls: [StaffURL] = [
            .home, .login, .logout, .audit, .accounts, .accountRole("a"), .accountUnlock("a"), .accountRemove("a"), .password,
            .venue("v"), .review(venueId: "v"), .numbers(venueId: "v"), .numbersTable(venueId: "v", table: "days"),
            .missions(venueId: "v"), .reward(venueId: "v", missionId: "m", language: "sv", version: "1"),
            .poster(venueId: "v", paper: "a4", format: "pdf"), .poster(venueId: "v", paper: "a4", format: "png"), .cards(venueId: "v"), .codeStickers(venueId: "v"),
            .events(venueId: "v"), .group("g"), .groupPhoto(groupId: "g", photoId: "p"), .groupClose("g"), .groupReopen("g"), .photoThumb("p"),
            .photoDisplay("p"), .photoHide("p"), .photoRestore("p"), .photoDelete("p"), .phonePreview(venueId: "v", language: "sv"),
            .editor(venueId: "v"), .editor(venueId: "v", saved: 2), .editorCheck(venueId: "v"), .editorSave(venueId: "v"),
            .draftReward(venueId: "v", hash: "h", missionId: "m", language: "sv"), .versions(venueId: "v"),
            .versionsDiff(venueId: "v", from: 1, to: 2), .versionRestore(venueId: "v", number: 1),
            .newVenue, .pictures(venueId: "v"), .picturesUploaded(venueId: "v", path: "icons/v/a.png"),
            .messages(venueId: "v"), .messages(venueId: "v", groupId: "g"), .wall(venueId: "v", batch: "1.000", names: false),
            .wallItems(venueId: "v", batch: nil, names: true), .collage(groupId: "g", missionId: "m", version: "k"),
            .groupPhotos("g"), .venuePhotos(venueId: "v"), .venuePhotos(venueId: "v", batch: "1.000"),
            .feed(venueId: "v"), .feed(venueId: "v", StaffFeedQuery(group: "a&b", before: "p")),
        ]
        let untried = Set(URLCase.allCases).subtracting(urls.map(URLCase.init))
        #expect(untried.isEmpty, "cases without an example: \(untried)")
        for url in urls {
            let path = url.path.prefix { $0 != "?" && $0 != "#" }.split(separator: "/").map(String.init)
            let matches = routes.contains { route in
                route.count == path.count && zip(route, path).allSatisfy { $0.0 == $0.1 || $0.0.hasPrefix("{") }
            }
            #expect(matches, "\(url.path)")
        }
    }

    @Test("The templates load, and one that would write a value unescaped is refused")
    func templatesEscape() throws {
        let templates = try PageTemplates.load()
        for name in ["page", "csrf", "staff-login", "staff-venue", "staff-group", "staff-photo", "staff-review", "staff-feed", "join-group"] {
            #expect(templates.names.contains(name), "\(name)")
        }
        for unescaped in ["{{{name}}}", "{{&name}}", "{{ & name }}", "{{=<% %>=}}", "{{%CONTENT_TYPE:TEXT}}"] {
            #expect(PageTemplates.unescapedTag(in: "<p>\(unescaped)</p>") != nil, "\(unescaped)")
        }
        #expect(PageTemplates.unescapedTag(in: "<p>{{name}} {{#list}}{{.}}{{/list}} {{>csrf}} {{! a comment }}</p>") == nil)

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-templates-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("<p>{{{name}}}</p>".utf8).write(to: URL(fileURLWithPath: folder + "/bad.mustache"))
        #expect(throws: StartupError.self) { try PageTemplates.load(folder: folder) }
        try Data("<p>{{name}}</p>".utf8).write(to: URL(fileURLWithPath: folder + "/bad.mustache"))
        #expect(try PageTemplates.load(folder: folder).render(["name": Self.hostile], "bad") == "<p>\(Self.escaped)</p>")
    }

    static func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    @Test("A hostile player name, group name, close reason, hiding reason, staff e-mail and mission title show escaped on every page")
    func hostileTextEscaped() async throws {
        let server = try TestServer()
        let title = "'" + Self.hostile.replacingOccurrences(of: "'", with: "''") + "'"
        try server.write(
            "aquarium.yaml",
            TestServer.aquarium(title: title).replacingOccurrences(of: "\nmissions:\n", with: "\nreview: before_sharing\nmissions:\n")
        )
        let email = Self.hostile + "@museum.example"
        try await StaffConsoleTests.addStaff(server, email, .admin)
        let image = try TestImages.jpegWithEXIF(width: 800, height: 600, orientation: 1)
        try await server.test { client in
            func player() async throws -> TestPlayer {
                let (response, body) = try await client.send(.post, "/api/v1/players", json: try Self.json(["name": Self.hostile]))
                #expect(response.status == .created)
                return TestPlayer(id: (body["player"] as? [String: Any])?["id"] as? String ?? "", token: body["token"] as? String ?? "")
            }
            func group(by player: TestPlayer) async throws -> (id: String, code: String) {
                let (_, body) = try await client.send(.post, "/api/v1/groups", json: try Self.json(["venueId": "aquarium", "name": Self.hostile]), headers: player.auth)
                let group = try #require(body["group"] as? [String: Any])
                return (try #require(group["id"] as? String), try #require(group["joinCode"] as? String))
            }
            func upload(_ player: TestPlayer, to group: String) async throws -> String {
                let (_, body) = try await PhotoRouteTests.upload(client, image, as: player, group: group, query: "?mission=sharks&task=shark")
                return try #require((body["photo"] as? [String: Any])?["id"] as? String)
            }
            let eve = try await player(), cy = try await player()
            let (first, code) = try await group(by: eve), (second, _) = try await group(by: cy)
            let shared = try await upload(eve, to: first), hidden = try await upload(eve, to: first)
            _ = try await upload(eve, to: first)

            let admin = try #require(try await StaffConsoleTests.signIn(client, email).1)
            #expect(try await admin.post(client, StaffURL.photoRestore(shared).path).status == .seeOther)
            #expect(try await admin.post(client, StaffURL.photoRestore(hidden).path).status == .seeOther)
            #expect(try await admin.post(client, StaffURL.photoHide(hidden).path, ["reason": Self.hostile]).status == .seeOther)
            #expect(try await admin.post(client, StaffURL.groupClose(second).path, ["reason": Self.hostile, "confirm": "yes"]).status == .seeOther)
            #expect(try await admin.post(client, StaffURL.cards(venueId: "aquarium").path, ["count": "1", "name": Self.hostile]).status == .ok)

            // Each page, and the places the hostile text reaches on it.
            let pages: [(url: String, places: Int)] = [
                (StaffURL.home.path, 1),  // the e-mail in the bar
                (StaffURL.venue("aquarium").path, 1 + 2 * 2 + 1),  // the bar; both groups' names and members; the shared photo's photographer
                (StaffURL.group(first).path, 1 + 2 + 1 + 2 * 3 + 1),  // the bar; the group's name twice; its member; 3 photographers twice; the reason
                (StaffURL.group(second).path, 1 + 2 + 1 + 1),  // the bar; the name twice; its member; the reason it was closed
                (StaffURL.review(venueId: "aquarium").path, 1 + 2),  // the bar; the waiting photo's photographer twice
                (StaffURL.feed(venueId: "aquarium").path, 1 + 1 + 2),  // the bar; the shared photo's group, and its photographer twice
                // The bar; who signed in and did each of the 5 actions; the account added; the cards' two names; the two reasons.
                (StaffURL.audit.path, 1 + 6 + 1 + 2 + 2),
                (StaffURL.numbers(venueId: "aquarium").path, 1),
                (StaffURL.missions(venueId: "aquarium").path, 1 + 2),  // the bar; the Swedish title, in its card and its picture's text
            ]
            for (url, places) in pages {
                let (status, html) = try await admin.page(client, url)
                #expect(status == .ok, "\(url)")
                #expect(!html.contains(Self.hostile) && !html.contains("<script>alert"), "\(url)")
                #expect(html.components(separatedBy: Self.escaped).count - 1 == places, "\(url)")
            }
            let (_, audit) = try await admin.page(client, StaffURL.audit.path)
            #expect(audit.contains("table cards made") && audit.contains("\(Self.escaped) 1 to \(Self.escaped) 1"))

            // The join page shows the group's name; the sign-in page the e-mail address typed.
            try await client.execute(uri: "/j/\(code)", method: .get) { response in
                let html = String(buffer: response.body)
                #expect(response.status == .ok && !html.contains(Self.hostile) && html.contains("<bdi>\(Self.escaped)</bdi>"))
            }
            let (refused, _) = try await StaffConsoleTests.signIn(client, email, password: "not the password at all")
            let html = String(buffer: refused.body)
            #expect(refused.status == .unauthorized && !html.contains(Self.hostile) && html.contains("value=\"\(Self.escaped)@museum.example\""))
        }
    }
}
