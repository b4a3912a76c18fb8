import Foundation
import GroupieCore
@testable import GroupieServer
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// A browser signed in to the staff console, as the tests drive it: its cookie and form token.
struct StaffBrowser: Sendable {
    var cookie: String
    var csrf: String

    var headers: HTTPFields { [.cookie: "\(StaffSession.cookieName)=\(cookie)"] }

    func post(_ client: some TestClientProtocol, _ uri: String, _ fields: [String: String] = [:], csrf: String? = nil) async throws -> TestResponse {
        var all = fields
        all["csrf"] = csrf ?? self.csrf
        var headers = headers
        headers[.contentType] = "application/x-www-form-urlencoded"
        return try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: StaffConsoleTests.form(all))) { $0 }
    }

    func page(_ client: some TestClientProtocol, _ uri: String) async throws -> (HTTPResponse.Status, String) {
        try await client.execute(uri: uri, method: .get, headers: headers) { ($0.status, String(buffer: $0.body)) }
    }
}

@Suite("Staff console")
struct StaffConsoleTests {
    static let password = "correct horse battery"

    static func server() throws -> TestServer {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        try server.write("museum.yaml", TestServer.aquarium(id: "museum"))
        return server
    }

    static func form(_ fields: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)" }
            .joined(separator: "&")
    }

    static func cookie(_ name: String, in response: TestResponse) -> String? {
        for value in response.headers[values: .setCookie] where value.hasPrefix(name + "=") {
            return String(value.dropFirst(name.count + 1).prefix { $0 != ";" })
        }
        return nil
    }

    static func hiddenToken(in html: String) -> String? {
        guard let range = html.range(of: #"name="csrf" value=""#) else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    /// Signs in through the form as a browser would; the response of the sign-in POST, and
    /// the signed-in browser when it worked.
    static func signIn(_ client: some TestClientProtocol, _ email: String, password: String = password, address: String? = nil)
        async throws -> (TestResponse, StaffBrowser?)
    {
        let (loginCookie, token) = try await client.execute(uri: "/staff/login", method: .get) { response in
            (cookie(StaffController.loginCookie, in: response), hiddenToken(in: String(buffer: response.body)))
        }
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .cookie: "\(StaffController.loginCookie)=\(loginCookie ?? "")"]
        if let address { headers[.xForwardedFor] = address }
        let response = try await client.execute(
            uri: "/staff/login", method: .post, headers: headers,
            body: ByteBuffer(string: form(["csrf": token ?? "", "email": email, "password": password]))
        ) { $0 }
        guard response.status == .seeOther, let session = cookie(StaffSession.cookieName, in: response) else { return (response, nil) }
        let (_, html) = try await StaffBrowser(cookie: session, csrf: "").page(client, "/staff")
        return (response, StaffBrowser(cookie: session, csrf: try #require(hiddenToken(in: html))))
    }

    /// The pixel size in a JPEG's frame header.
    static func jpegSize(_ bytes: Data) -> (width: Int, height: Int)? {
        let b = [UInt8](bytes)
        var i = 2
        while i + 9 < b.count, b[i] == 0xFF {
            let marker = b[i + 1], length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            if (0xC0...0xC3).contains(marker) {
                return (Int(b[i + 7]) << 8 | Int(b[i + 8]), Int(b[i + 5]) << 8 | Int(b[i + 6]))
            }
            i += 2 + length
        }
        return nil
    }

    static func addStaff(_ server: TestServer, _ email: String, _ role: StaffRole, venues: Set<String> = []) async throws {
        try await StaffAccounts.open(dataDirectory: server.configuration.dataDirectory, databaseURL: server.configuration.databaseURL).add(email: email, password: password, role: role, venueIds: venues)
    }

    @Test("Signing in: a session cookie that is HttpOnly, Secure, SameSite=Strict; wrong passwords and stale forms refused; sign-out ends it")
    func signInAndOut() async throws {
        let server = try Self.server()
        try await Self.addStaff(server, "Eva@Museum.example", .moderator, venues: ["aquarium"])
        try await server.test { client in
            let (refused, none) = try await Self.signIn(client, "eva@museum.example", password: "wrong password!")
            #expect(refused.status == .unauthorized && none == nil)
            #expect(String(buffer: refused.body).contains("Wrong e-mail address or password."))

            // A form without its sign-in token (posted from another site) is refused.
            let forged = try await client.execute(
                uri: "/staff/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: Self.form(["email": "eva@museum.example", "password": Self.password]))
            ) { $0 }
            #expect(forged.status == .forbidden)
            #expect(Self.cookie(StaffSession.cookieName, in: forged) == nil)

            let (response, signedIn) = try await Self.signIn(client, " EVA@museum.example ")
            #expect(response.status == .seeOther && response.headers[.location] == "/staff")
            let setCookie = try #require(response.headers[values: .setCookie].first { $0.hasPrefix(StaffSession.cookieName + "=") })
            for attribute in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/staff"] {
                #expect(setCookie.contains(attribute), "\(attribute) missing from \(setCookie)")
            }
            let browser = try #require(signedIn)
            let (status, html) = try await browser.page(client, "/staff")
            #expect(status == .ok && html.contains("The Aquarium") && !html.contains("museum.yaml"))

            // Sign-out needs the form's token, then ends the session on the server.
            #expect(try await browser.post(client, "/staff/logout", csrf: "forged").status == .forbidden)
            #expect(try await browser.post(client, "/staff/logout").status == .seeOther)
            let (after, _) = try await client.execute(uri: "/staff", method: .get, headers: browser.headers) { ($0.status, $0.headers[.location]) }
            #expect(after == .seeOther)
        }
    }

    @Test("Sign-in attempts are limited per account from an address and per address; the member signs in from another address, another account from the same one")
    func signInLimits() async throws {
        let server = try Self.server()
        try await Self.addStaff(server, "eva@museum.example", .viewer, venues: ["aquarium"])
        try await Self.addStaff(server, "ola@museum.example", .viewer, venues: ["aquarium"])
        var configuration = server.configuration
        configuration.trustForwardedFor = true
        var trusted = server
        trusted.configuration = configuration
        try await trusted.test { client in
            for _ in 0..<StaffLoginLimits.perAccountAndAddress {
                let (response, _) = try await Self.signIn(client, "eva@museum.example", password: "not the password", address: "10.0.0.1")
                #expect(response.status == .unauthorized)
            }
            let (limited, none) = try await Self.signIn(client, "eva@museum.example", address: "10.0.0.1")
            #expect(limited.status == .tooManyRequests && none == nil, "the right password too, from the address that guessed")
            #expect(limited.headers[.retryAfter] != nil)
            #expect(String(buffer: limited.body).contains("minutes"))
            // A stranger's guesses do not lock the member out: from another address she gets in.
            let (eva, evaBrowser) = try await Self.signIn(client, "eva@museum.example", address: "10.0.0.2")
            #expect(eva.status == .seeOther && evaBrowser != nil)
            let (other, browser) = try await Self.signIn(client, "ola@museum.example", address: "10.0.0.1")
            #expect(other.status == .seeOther && browser != nil)
        }
    }

    /// Every route for every role, at the member's own venue and at another: the authorisation matrix.
    @Test("Authorisation matrix: each role × each route × own and other venue")
    func authorisationMatrix() async throws {
        let server = try Self.server()
        let staff: [(email: String, role: StaffRole, venues: Set<String>)] = [
            ("admin@groupie.example", .admin, []), ("editor@aquarium.example", .editor, ["aquarium"]),
            ("moderator@aquarium.example", .moderator, ["aquarium"]), ("viewer@aquarium.example", .viewer, ["aquarium"]),
            ("moderator@museum.example", .moderator, ["museum"]),
        ]
        for member in staff { try await Self.addStaff(server, member.email, member.role, venues: member.venues) }
        let image = try TestImages.jpegWithEXIF(width: 800, height: 600, orientation: 1)
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            var photos: [String] = []
            for _ in 0..<4 {
                let (_, body) = try await PhotoRouteTests.upload(client, image, as: ada, group: group.id, query: "?mission=sharks&task=shark")
                photos.append(try #require((body["photo"] as? [String: Any])?["id"] as? String))
            }
            let museumGroup = try await client.newGroup(by: try await client.newPlayer("Bo"), venue: "museum")

            // Without a session: pages go to the sign-in page, forms are refused, nothing changes.
            for page in [
                "/staff", "/staff/venues/aquarium", "/staff/groups/\(group.id)", "/staff/photos/\(photos[0])/thumb", "/staff/audit",
                "/staff/venues/aquarium/numbers", "/staff/venues/aquarium/numbers/research.csv", "/staff/venues/aquarium/poster.pdf",
                "/staff/venues/aquarium/events", "/staff/venues/aquarium/review", "/staff/photos/\(photos[0])/display",
            ] {
                let (status, location) = try await client.execute(uri: page, method: .get) { ($0.status, $0.headers[.location]) }
                #expect(status == .seeOther && location == "/staff/login", "\(page)")
            }
            let anonymous = StaffBrowser(cookie: "not-a-session", csrf: "x")
            #expect(try await anonymous.post(client, "/staff/photos/\(photos[0])/hide", ["reason": "r"]).status == .unauthorized)

            var deletable = photos.dropFirst()
            for member in staff {
                let browser = try #require(try await Self.signIn(client, member.email).1)
                let ownsAquarium = member.role == .admin || member.venues.contains("aquarium")
                let ownsMuseum = member.role == .admin || member.venues.contains("museum")
                let moderates = ownsAquarium && member.role >= .moderator
                let seen: HTTPResponse.Status = ownsAquarium ? .ok : .notFound
                let acted: HTTPResponse.Status = moderates ? .seeOther : (ownsAquarium ? .forbidden : .notFound)
                let who = "\(member.email)"

                #expect(try await browser.page(client, "/staff").0 == .ok, "\(who)")
                #expect(try await browser.page(client, "/staff/audit").0 == .ok, "\(who)")
                #expect(try await browser.page(client, "/staff/venues/aquarium").0 == seen, "\(who)")
                #expect(try await browser.page(client, "/staff/venues/museum").0 == (ownsMuseum ? .ok : .notFound), "\(who)")
                #expect(try await browser.page(client, "/staff/groups/\(museumGroup.id)").0 == (ownsMuseum ? .ok : .notFound), "\(who)")
                let (groupStatus, groupPage) = try await browser.page(client, "/staff/groups/\(group.id)")
                #expect(groupStatus == seen, "\(who)")
                if ownsAquarium {
                    #expect(groupPage.contains("Ada"))
                    #expect(groupPage.contains("/hide") == moderates, "\(who) sees moderation only when allowed")
                    #expect(!groupPage.contains(ada.token), "no visitor token in the console")
                }
                #expect(try await browser.page(client, "/staff/photos/\(photos[0])/thumb").0 == seen, "\(who)")
                #expect(try await browser.page(client, "/staff/photos/\(photos[0])/display").0 == seen, "\(who)")
                #expect(try await browser.page(client, "/staff/venues/aquarium/review").0 == seen, "\(who)")
                #expect(try await browser.page(client, "/staff/venues/museum/review").0 == (ownsMuseum ? .ok : .notFound), "\(who)")
                #expect(try await browser.page(client, "/staff/venues/aquarium/numbers").0 == seen, "\(who)")
                #expect(try await browser.page(client, "/staff/venues/aquarium/numbers/research.csv").0 == seen, "\(who)")
                #expect(try await browser.page(client, "/staff/venues/aquarium/poster.png").0 == seen, "\(who)")
                if !ownsAquarium {
                    // The live feed streams without end for those who may see it; the others get 404.
                    #expect(try await browser.page(client, "/staff/venues/aquarium/events").0 == .notFound, "\(who)")
                }

                // A form with a wrong token changes nothing, whatever the role.
                #expect(try await browser.post(client, "/staff/photos/\(photos[0])/hide", ["reason": "r"], csrf: "forged").status == .forbidden)
                #expect(try await browser.post(client, "/staff/photos/\(photos[0])/hide", ["reason": "test"]).status == acted, "\(who)")
                #expect(try await browser.post(client, "/staff/photos/\(photos[0])/restore").status == acted, "\(who)")
                let victim = moderates ? deletable.removeFirst() : photos[0]
                #expect(try await browser.post(client, "/staff/photos/\(victim)/delete", ["reason": "test"]).status == acted, "\(who)")
                #expect(try await browser.post(client, "/staff/groups/\(museumGroup.id)/close", ["reason": "test"]).status
                    == (ownsMuseum ? .seeOther : .notFound), "\(who)")
            }
            // Photo 0 was hidden and restored three times; photos 1 to 3 were deleted by the three who may.
            let (_, album) = try await client.send(.get, "/api/v1/groups/\(group.id)/photos", headers: ada.auth)
            #expect((album["photos"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [photos[0]])
        }
    }

    @Test("Hiding a photo takes it from the album, the task, the collage and the ZIP at once; restoring brings it back; the audit log says who and why")
    func moderationEffects() async throws {
        let server = try Self.server()
        try await Self.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        let image = try TestImages.jpegWithEXIF(width: 800, height: 600, orientation: 1)
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let (_, body) = try await PhotoRouteTests.upload(client, image, as: ada, group: group.id, query: "?mission=sharks&task=shark")
            let photoId = try #require((body["photo"] as? [String: Any])?["id"] as? String)
            let thumb = try #require(((body["photo"] as? [String: Any])?["urls"] as? [String: Any])?["thumb"] as? String)
            #expect(try await ReloadTests.eventually {
                let (_, album) = try await client.send(.get, "/api/v1/groups/\(group.id)/photos", headers: ada.auth)
                return (album["collages"] as? [Any])?.count == 1
            } != nil)
            func taskState() async throws -> String? {
                let (_, seen) = try await client.send(.get, "/api/v1/groups/\(group.id)", headers: ada.auth)
                let missions = (seen["group"] as? [String: Any])?["missions"] as? [[String: Any]]
                return (missions?.first?["tasks"] as? [[String: Any]])?.first?["state"] as? String
            }
            func zipNames() async throws -> [String] {
                let (_, token) = try await client.send(.post, "/api/v1/groups/\(group.id)/events/token", headers: ada.auth)
                let (_, zip) = try await PhotoRouteTests.bytes(client, "/api/v1/groups/\(group.id)/album.zip?token=\(token["token"] as? String ?? "")")
                let path = TestImages.folder + "/staff-\(UUID().uuidString).zip"
                try zip.write(to: URL(fileURLWithPath: path))
                return try CollageRouteTests.python(["-c", "import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))", path])
                    .split(separator: "\n").map(String.init)
            }
            #expect(try await taskState() == "done")
            #expect(try await zipNames().count == 2, "the photo and the collage")

            let browser = try #require(try await Self.signIn(client, "mod@aquarium.example").1)
            #expect(try await browser.post(client, "/staff/photos/\(photoId)/hide", ["reason": "a face in the picture"]).status == .seeOther)
            let (_, album) = try await client.send(.get, "/api/v1/groups/\(group.id)/photos", headers: ada.auth)
            #expect((album["photos"] as? [Any])?.isEmpty == true)
            #expect((album["collages"] as? [Any])?.isEmpty == true)
            #expect(try await taskState() == "open")
            #expect(try await zipNames().isEmpty)
            #expect(try await PhotoRouteTests.bytes(client, thumb).0 == .notFound, "not even by its signed URL")
            let (_, staffPage) = try await browser.page(client, "/staff/groups/\(group.id)")
            #expect(staffPage.contains("Hidden photos") && staffPage.contains("a face in the picture"))
            #expect(try await browser.page(client, "/staff/photos/\(photoId)/thumb").0 == .ok, "staff still see it")

            #expect(try await browser.post(client, "/staff/photos/\(photoId)/restore").status == .seeOther)
            #expect(try await taskState() == "done")
            #expect(try await ReloadTests.eventually { try await zipNames().count == 2 } != nil)

            let (_, audit) = try await browser.page(client, "/staff/audit")
            #expect(audit.contains("photo hidden") && audit.contains("a face in the picture") && audit.contains("photo restored"))
            #expect(audit.contains("mod@aquarium.example"))

            // Deleting removes the files once no photo uses them.
            #expect(try await browser.post(client, "/staff/photos/\(photoId)/delete", ["reason": "asked by the teacher"]).status == .seeOther)
            #expect(PhotoRouteTests.blobFiles(server).isEmpty)
            #expect(try await browser.post(client, "/staff/photos/\(photoId)/delete", ["reason": "again"]).status == .notFound)
        }
    }

    @Test("Review before sharing: a new photo reaches only its photographer until staff share it; kept hidden, it never reaches the group")
    func reviewBeforeSharing() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium().replacingOccurrences(of: "\nmissions:\n", with: "\nreview: before_sharing\nmissions:\n"))
        try await Self.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        try await Self.addStaff(server, "viewer@aquarium.example", .viewer, venues: ["aquarium"])
        let image = try TestImages.jpegWithEXIF(width: 800, height: 600, orientation: 1)
        let other = try TestImages.jpegWithEXIF(width: 640, height: 480, orientation: 1)
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            func album(_ player: TestPlayer) async throws -> (photos: [String], waiting: [String]) {
                let (_, page) = try await client.send(.get, "/api/v1/groups/\(group.id)/photos", headers: player.auth)
                func ids(_ key: String) -> [String] { (page[key] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } }
                return (ids("photos"), ids("waitingForReview"))
            }
            func taskState() async throws -> String? {
                let (_, seen) = try await client.send(.get, "/api/v1/groups/\(group.id)", headers: bo.auth)
                let missions = (seen["group"] as? [String: Any])?["missions"] as? [[String: Any]]
                return (missions?.first?["tasks"] as? [[String: Any]])?.first?["state"] as? String
            }

            let (created, body) = try await PhotoRouteTests.upload(
                client, image, as: ada, group: group.id, query: "?mission=sharks&task=shark", headers: [.idempotencyKey: "first"]
            )
            #expect(created.status == .created)
            let photo = try #require(body["photo"] as? [String: Any])
            let photoId = try #require(photo["id"] as? String)
            #expect(photo["review"] as? String == "pending")
            let (_, again) = try await PhotoRouteTests.upload(
                client, image, as: ada, group: group.id, query: "?mission=sharks&task=shark", headers: [.idempotencyKey: "first"]
            )
            #expect((again["photo"] as? [String: Any])?["id"] as? String == photoId, "a retry gets the held photo, not a second one")
            #expect(((again["photo"] as? [String: Any])?["review"] as? String) == "pending")

            // Held: the photographer sees it waiting, the teammate nothing, the task stays open.
            #expect(try await album(ada) == ([], [photoId]))
            #expect(try await album(bo) == ([], []))
            #expect(try await taskState() == "open")
            let thumb = try #require((photo["urls"] as? [String: Any])?["thumb"] as? String)
            #expect(try await PhotoRouteTests.bytes(client, thumb).0 == .ok, "its photographer's signed URL shows it")
            #expect(try await PhotoRouteTests.bytes(client, "/api/v1/photos/\(photoId)/thumb", headers: bo.auth).0 == .notFound)
            #expect(try await PhotoRouteTests.bytes(client, "/api/v1/photos/\(photoId)/thumb", headers: ada.auth).0 == .ok)

            // Staff see it in the queue; a viewer sees it without the forms.
            let viewer = try #require(try await Self.signIn(client, "viewer@aquarium.example").1)
            let (_, venuePage) = try await viewer.page(client, "/staff/venues/aquarium")
            #expect(venuePage.contains("1 photo waits"))
            let (_, viewerQueue) = try await viewer.page(client, "/staff/venues/aquarium/review")
            #expect(viewerQueue.contains("held-\(photoId)") && !viewerQueue.contains("/staff/photos/\(photoId)/restore"))
            #expect(try await viewer.post(client, "/staff/photos/\(photoId)/restore", ["next": "review"]).status == .forbidden)
            let browser = try #require(try await Self.signIn(client, "mod@aquarium.example").1)
            let (_, queue) = try await browser.page(client, "/staff/venues/aquarium/review")
            #expect(queue.contains("/staff/photos/\(photoId)/restore") && queue.contains("1 photo waits"))
            #expect(try await browser.page(client, "/staff/photos/\(photoId)/display").0 == .ok)

            // Shared: the group gets it as a new photo, and the task is done.
            let shared = try await browser.post(client, "/staff/photos/\(photoId)/restore", ["next": "review"])
            #expect(shared.status == .seeOther && shared.headers[.location] == "/staff/venues/aquarium/review")
            #expect(try await album(bo) == ([photoId], []))
            #expect(try await album(ada) == ([photoId], []))
            #expect(try await taskState() == "done")

            // Kept hidden: it leaves its photographer's list and never reaches the group.
            let (_, second) = try await PhotoRouteTests.upload(client, other, as: bo, group: group.id, query: "?mission=sharks&task=shark")
            let secondId = try #require((second["photo"] as? [String: Any])?["id"] as? String)
            #expect(try await album(bo) == ([photoId], [secondId]))
            let kept = try await browser.post(client, "/staff/photos/\(secondId)/hide", ["reason": "a classmate's face", "next": "elsewhere"])
            #expect(kept.status == .seeOther && kept.headers[.location] == "/staff/groups/\(group.id)", "only next=review is followed")
            #expect(try await album(bo) == ([photoId], []))
            #expect(try await album(ada) == ([photoId], []))
            #expect(try await PhotoRouteTests.bytes(client, "/api/v1/photos/\(secondId)/thumb", headers: bo.auth).0 == .notFound)
            let (_, groupPage) = try await browser.page(client, "/staff/groups/\(group.id)")
            #expect(groupPage.contains("a classmate&#39;s face"))
            let (_, emptyQueue) = try await browser.page(client, "/staff/venues/aquarium/review")
            #expect(emptyQueue.contains("No photo waits for review."))

            let (_, audit) = try await browser.page(client, "/staff/audit")
            #expect(audit.contains("photo shared after review") && audit.contains("photo not shared after review"))

            // A photographer may take back a photo still waiting; the group's creator cannot see it to.
            let (_, third) = try await PhotoRouteTests.upload(client, other, as: bo, group: group.id)
            let thirdId = try #require((third["photo"] as? [String: Any])?["id"] as? String)
            #expect(try await client.send(.delete, "/api/v1/photos/\(thirdId)", headers: ada.auth).0.status == .notFound)
            #expect(try await client.send(.delete, "/api/v1/photos/\(thirdId)", headers: bo.auth).0.status == .noContent)
            #expect(try await album(bo) == ([photoId], []))
            #expect(try await browser.page(client, "/staff/photos/\(thirdId)/thumb").0 == .notFound, "gone for staff too")
        }
    }

    @Test("A closed group takes no joins and no photos, and its members are told why")
    func closeGroup() async throws {
        let server = try Self.server()
        try await Self.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        let image = try TestImages.jpegWithEXIF(width: 800, height: 600, orientation: 1)
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            let browser = try #require(try await Self.signIn(client, "mod@aquarium.example").1)
            #expect(try await browser.post(client, "/staff/groups/\(group.id)/close", ["reason": ""]).status == .unprocessableContent)
            #expect(try await browser.post(client, "/staff/groups/\(group.id)/close", ["reason": "the museum closes at five"]).status == .seeOther)

            let (joined, problem) = try await client.join(group.code, as: bo)
            #expect(joined.status == .gone && problem["code"] as? String == "group-closed")
            let (uploaded, refusal) = try await PhotoRouteTests.upload(client, image, as: ada, group: group.id)
            #expect(uploaded.status == .gone && (refusal["detail"] as? String)?.contains("the museum closes at five") == true)
            let (_, seen) = try await client.send(.get, "/api/v1/groups/\(group.id)", headers: ada.auth)
            let document = try #require(seen["group"] as? [String: Any])
            #expect(document["closedReason"] as? String == "the museum closes at five")
            #expect(document["joinable"] as? Bool == false)
            #expect(PhotoRouteTests.blobFiles(server).isEmpty, "the refused upload left no files")
        }
    }

    @Test("Numbers from a played history with a moved clock match the hand count, as a page and as CSV; the research export has no names")
    func numbers() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium(extraMission: CollageRouteTests.reef))
        try server.write("museum.yaml", TestServer.aquarium(id: "museum"))
        try await Self.addStaff(server, "viewer@aquarium.example", .viewer, venues: ["aquarium"])
        try await Self.addStaff(server, "viewer@museum.example", .viewer, venues: ["museum"])
        try await server.test { client in
            // Ada's group does the reef: red after 1 minute, green 2 minutes later, blue 2 more.
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let first = try await client.newGroup(by: ada)
            for (task, wait) in [("red", 60.0), ("green", 120), ("blue", 120)] {
                server.clock.advance(by: wait)
                let image = try TestImages.solid(width: 300, height: 200, rgb: (200, 40, 40), ext: "jpg")
                #expect(try await PhotoRouteTests.upload(client, image, as: ada, group: first.id, query: "?mission=reef&task=\(task)").0.status == .created)
            }
            // Bo's group photographs red and stops there.
            let second = try await client.newGroup(by: bo)
            server.clock.advance(by: 60)
            let image = try TestImages.solid(width: 300, height: 200, rgb: (40, 200, 40), ext: "jpg")
            #expect(try await PhotoRouteTests.upload(client, image, as: bo, group: second.id, query: "?mission=reef&task=red").0.status == .created)

            let browser = try #require(try await Self.signIn(client, "viewer@aquarium.example").1)
            func csv(_ table: String) async throws -> [String] {
                let (status, text) = try await browser.page(client, "/staff/venues/aquarium/numbers/\(table)")
                #expect(status == .ok)
                return text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            }
            // 1,800,000,000 is 2027-01-15 in Stockholm.
            #expect(try await csv("days.csv") == ["date,groups_started,missions_completed", "2027-01-15,2,1"])
            #expect(try await csv("missions.csv") == [
                "mission,started,completed,drop_off,median_minutes", "sharks,0,0,0,", "rays,0,0,0,", "reef,2,1,1,4.0",
            ])
            #expect(try await csv("tasks.csv").suffix(3) == ["reef,red,2,0,0.0", "reef,green,1,1,2.0", "reef,blue,1,1,4.0"])
            let research = try await csv("research.csv")
            #expect(research.count == 1 + 8 + 3, "header; Ada's group: start, 3 photos, 3 tasks, the mission; Bo's: start, a photo, a task")
            #expect(research.first == "group,event,mission,task,at")
            #expect(research.filter { $0.hasPrefix(first.id + ",mission-completed,reef,,") }.count == 1)
            for secret in ["Ada", "Bo", ada.id, bo.id] { #expect(!research.joined().contains(secret)) }

            let (status, html) = try await browser.page(client, "/staff/venues/aquarium/numbers")
            #expect(status == .ok && html.contains("Tasks most skipped") && html.contains("<svg"))
            #expect(try await browser.page(client, "/staff/venues/aquarium/numbers/secrets.csv").0 == .notFound)
            let (_, audit) = try await browser.page(client, "/staff/audit")
            #expect(audit.contains("numbers exported") && audit.contains("research.csv"))

            // The tally the database keeps as events are stored is the one the events make, and
            // stays so when a group goes.
            let database = try server.database()
            #expect(try await database.visitTally(venueId: "aquarium") == VisitNumbers.Tally(histories: try await database.venueHistories(venueId: "aquarium")))
            #expect(try await database.visitTally(venueId: "aquarium").missions["reef"] == [240: 1, -1: 1])
            #expect(try await client.send(.delete, "/api/v1/me", headers: bo.auth).0.status == .noContent)
            // Ada's group was made more than a minute before Bo's: retention takes it alone.
            #expect(try await database.deleteGroups(createdBefore: server.clock.now.addingTimeInterval(-61)).groups == 1)
            let left = try await database.visitTally(venueId: "aquarium")
            #expect(left == VisitNumbers.Tally(histories: try await database.venueHistories(venueId: "aquarium")))
            #expect(left.missions["reef"]?.filter { $0.value > 0 } == [-1: 1] && left.photosPerGroup.filter { $0.value > 0 } == [1: 1])

            let other = try #require(try await Self.signIn(client, "viewer@museum.example").1)
            #expect(try await other.page(client, "/staff/venues/aquarium/numbers").0 == .notFound)
            #expect(try await other.page(client, "/staff/venues/aquarium/numbers/research.csv").0 == .notFound)
        }
    }

    @Test("The venue's poster, A4 PDF and A3 PNG: its QR code, read from the rendered page, opens the venue's start page")
    func poster() async throws {
        let server = try Self.server()
        try await Self.addStaff(server, "viewer@aquarium.example", .viewer, venues: ["aquarium"])
        try await server.test { client in
            let browser = try #require(try await Self.signIn(client, "viewer@aquarium.example").1)
            let pdf = try await client.execute(uri: "/staff/venues/aquarium/poster.pdf", method: .get, headers: browser.headers) { $0 }
            #expect(pdf.status == .ok && pdf.headers[.contentType] == "application/pdf")
            let bytes = Data(buffer: pdf.body)
            #expect(try QRDecoder.decode(try PDFTools.firstPage(bytes)) == "https://groupie.test/?venue=aquarium")
            let text = try PDFTools.text(bytes)
            #expect(text.contains("Akvariet") && text.contains("Skanna koden") && text.contains("Scan the code"), "title, Swedish and English")

            let png = try await client.execute(uri: "/staff/venues/aquarium/poster.png?paper=a3", method: .get, headers: browser.headers) { $0 }
            #expect(png.status == .ok && png.headers[.contentType] == "image/png")
            #expect(Data(buffer: png.body).prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
            #expect(try await browser.page(client, "/staff/venues/aquarium/poster.pdf?paper=letter").0 == .badRequest)
            #expect(try await browser.page(client, "/staff/venues/museum/poster.pdf").0 == .notFound)
            #expect(try await client.execute(uri: "/staff/venues/aquarium/poster.pdf", method: .get) { $0.status } == .seeOther)
        }
    }

    @Test("Editors see the mission file's loaded version, its problems as saved now with file:line:col, and each mission in each language")
    func missionFile() async throws {
        let server = try Self.server()
        try server.write("aquarium.yaml", TestServer.aquarium(extraMission: CollageRouteTests.reef))
        try await Self.addStaff(server, "editor@aquarium.example", .editor, venues: ["aquarium"])
        try await Self.addStaff(server, "moderator@aquarium.example", .moderator, venues: ["aquarium"])
        try await Self.addStaff(server, "editor@museum.example", .editor, venues: ["museum"])
        try await server.test { client in
            let editor = try #require(try await Self.signIn(client, "editor@aquarium.example").1)
            let (status, page) = try await editor.page(client, "/staff/venues/aquarium/missions")
            #expect(status == .ok)
            #expect(page.contains("No problems") && page.contains("aquarium.yaml"))
            #expect(page.contains("Fota en haj") && page.contains("Photograph a shark"), "the Swedish and the English preview")
            #expect(page.contains("Opens after: sharks"))

            // Each mission's reward drawn from stand-in photos, in each language, as the collage
            // engine lays out photos of those shapes.
            #expect(page.contains("/staff/venues/aquarium/missions/reef/reward.jpg?lang=sv&amp;v="))
            // The reef's three tasks drawn as a grid from the three stand-in shapes (3:4, 4:3, 1:1)
            // on 1024 pixels: one row of three under a caption band, on a 2:1 canvas.
            let expected = (width: 1024, height: 512)
            for language in ["sv", "en"] {
                let (rewardStatus, reward) = try await client.execute(
                    uri: "/staff/venues/aquarium/missions/reef/reward.jpg?lang=\(language)", method: .get, headers: editor.headers
                ) { ($0.status, Data(buffer: $0.body)) }
                #expect(rewardStatus == .ok)
                let size = try #require(Self.jpegSize(reward))
                #expect(size.width == expected.width && size.height == expected.height, "\(size)")
            }
            #expect(try await editor.page(client, "/staff/venues/aquarium/missions/reef/reward.jpg?lang=de").0 == .badRequest)
            #expect(try await editor.page(client, "/staff/venues/aquarium/missions/nope/reward.jpg").0 == .notFound)

            // Saved with a mistake: the problem shows with its place; the last good version stays loaded.
            try server.write("aquarium.yaml", TestServer.aquarium(title: "Trasig") + "\n  - id: Broken Mission\n")
            let broken = try await ReloadTests.eventually {
                try await editor.page(client, "/staff/venues/aquarium/missions").1.contains("aquarium.yaml:")
            }
            #expect(broken != nil)
            let (_, now) = try await editor.page(client, "/staff/venues/aquarium/missions")
            #expect(now.contains("the last good one") && now.contains("error:") && now.contains(">Hajar<"))

            let moderator = try #require(try await Self.signIn(client, "moderator@aquarium.example").1)
            #expect(try await moderator.page(client, "/staff/venues/aquarium/missions").0 == .forbidden)
            #expect(try await moderator.page(client, "/staff/venues/aquarium/missions/rays/reward.jpg").0 == .forbidden)
            let other = try #require(try await Self.signIn(client, "editor@museum.example").1)
            #expect(try await other.page(client, "/staff/venues/aquarium/missions").0 == .notFound)
            #expect(try await other.page(client, "/staff/venues/aquarium/missions/rays/reward.jpg").0 == .notFound)
        }
    }

    @Test("Table cards: groups made in advance, one card each whose QR code opens its join page; the first to join leads the group")
    func tableCards() async throws {
        let server = try Self.server()
        try await Self.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        try await Self.addStaff(server, "viewer@aquarium.example", .viewer, venues: ["aquarium"])
        try await server.test { client in
            let moderator = try #require(try await Self.signIn(client, "mod@aquarium.example").1)
            for bad in ["0", "41", "many"] {
                #expect(try await moderator.post(client, "/staff/venues/aquarium/cards", ["count": bad]).status == .unprocessableContent)
            }
            let before = try await server.database().counts().groups
            let response = try await moderator.post(client, "/staff/venues/aquarium/cards", ["count": "5", "name": "Class 5B"])
            #expect(response.status == .ok && response.headers[.contentType] == "application/pdf")
            let pdf = Data(buffer: response.body)
            let info = try PDFTools.info(pdf)
            #expect(info.split(separator: "\n").contains { $0.hasPrefix("Pages:") && $0.split(separator: " ").last == "2" }, "four cards a page")
            let text = try PDFTools.text(pdf)
            for number in 1...5 { #expect(text.contains("Class 5B \(number)")) }
            #expect(try await server.database().counts().groups == before + 5)

            // The four codes of the first page open join pages of the new groups.
            let decoded = try QRDecoder.decode(try PDFTools.firstPage(pdf, dpi: 150)).split(separator: "\n").map(String.init)
            #expect(decoded.count == 4)
            let code = try #require(decoded.first.flatMap { $0.hasPrefix("https://groupie.test/j/") ? String($0.dropFirst(23)) : nil })
            #expect(text.contains(code))
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let (joined, body) = try await client.join(code, as: ada)
            #expect(joined.status == .ok)
            let group = try #require(body["group"] as? [String: Any])
            #expect((group["name"] as? String)?.hasPrefix("Class 5B ") == true)
            _ = try await client.join(code, as: bo)
            let (_, seen) = try await client.send(.get, "/api/v1/groups/\(group["id"] as? String ?? "")", headers: bo.auth)
            let members = try #require((seen["group"] as? [String: Any])?["members"] as? [[String: Any]])
            #expect(members.first { $0["isCreator"] as? Bool == true }?["name"] as? String == "Ada", "the first to join leads")

            let viewer = try #require(try await Self.signIn(client, "viewer@aquarium.example").1)
            #expect(try await viewer.post(client, "/staff/venues/aquarium/cards", ["count": "2"]).status == .forbidden)
            #expect(try await moderator.post(client, "/staff/venues/museum/cards", ["count": "2"]).status == .notFound)
            let (_, audit) = try await moderator.page(client, "/staff/audit")
            #expect(audit.contains("table cards made") && audit.contains("Class 5B 1 to Class 5B 5"))
        }
    }

    @Test("Form bodies: plus signs, escapes and repeated names decode; broken escapes and bytes that are not UTF-8 are refused")
    func formDecoding() {
        #expect(StaffForm.decode("a=b+c&a=x&d&e=&n=%C3%A5%2B") == ["a": "b c", "d": "", "e": "", "n": "å+"])
        for broken in ["a=%zz", "a=%", "a=%4", "%=1", "a=%E2%82", "a=%FF"] {
            #expect(StaffForm.decode(broken) == nil, "\(broken)")
        }
        #expect(StaffForm.decode("") == [:])
    }

    @Test("A hostile form body is a 400 and the server goes on")
    func hostileForm() async throws {
        let server = try Self.server()
        try await server.test { client in
            // Posted as the sign-in page's own form would be (its cookie, its token), so that the
            // CSRF check, which answers 403 to a post without them, cannot be what refuses it.
            let (loginCookie, token) = try await client.execute(uri: "/staff/login", method: .get) { response in
                (Self.cookie(StaffController.loginCookie, in: response), Self.hiddenToken(in: String(buffer: response.body)))
            }
            let headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .cookie: "\(StaffController.loginCookie)=\(try #require(loginCookie))"]
            let csrf = "csrf=\(try #require(token))"
            for body in ["\(csrf)&email=%zz", "%&\(csrf)", "\(csrf)&email=%E2%82", csrf + String(repeating: "&a=%25", count: 2000) + "&b=%"] {
                let (status, text) = try await client.execute(uri: "/staff/login", method: .post, headers: headers, body: ByteBuffer(string: body)) {
                    ($0.status, String(buffer: $0.body))
                }
                #expect(status == .badRequest, "\(body.prefix(20)): \(text.prefix(200))")
            }
            #expect(try await client.execute(uri: "/healthz", method: .get) { $0.status } == .ok)
        }
    }

    @Test("Visitors' names reach the console's pages as text, never as markup")
    func namesEscaped() async throws {
        let server = try Self.server()
        try await Self.addStaff(server, "viewer@aquarium.example", .viewer, venues: ["aquarium"])
        try await server.test { client in
            let eve = try await client.newPlayer("<i>Eve</i>&co")
            let group = try await client.newGroup(by: eve)
            let browser = try #require(try await Self.signIn(client, "viewer@aquarium.example").1)
            for page in ["/staff/venues/aquarium", "/staff/groups/\(group.id)"] {
                let (status, html) = try await browser.page(client, page)
                #expect(status == .ok)
                #expect(html.contains("&lt;i&gt;Eve&lt;/i&gt;&amp;co") && !html.contains("<i>Eve"), "\(page)")
                #expect(html.contains("href=\"/staff/groups/\(group.id)\"") || page.hasPrefix("/staff/groups"), "\(page)")
            }
        }
    }

    @Test("groupie staff add, list, reset-password and remove, with the password on standard input")
    func commandLine() async throws {
        let server = try Self.server()
        let data = server.configuration.dataDirectory
        // On a thread of its own: each command hashes a password, which takes a while.
        @Sendable func run(_ arguments: [String], input: String) async throws -> (Int32, String, String) {
            try await offPool { try runBlocking(arguments, input: input) }
        }
        @Sendable func runBlocking(_ arguments: [String], input: String) throws -> (Int32, String, String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLineTests.executable)
            process.arguments = arguments + ["--data", data]
            let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = stderr
            try process.run()
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
            let out = stdout.fileHandleForReading.readDataToEndOfFile(), err = stderr.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
        }
        let added = try await run(["staff", "add", "eva@museum.example", "--venue", "aquarium", "--role", "moderator"], input: Self.password + "\n")
        #expect(added.0 == 0, "\(added.2)")
        #expect(added.1.contains("eva@museum.example added as moderator of aquarium"))
        let short = try await run(["staff", "add", "ola@museum.example", "--venue", "aquarium", "--role", "viewer"], input: "short\n")
        #expect(short.0 != 0 && short.2.contains("10 to 72 characters"))
        let again = try await run(["staff", "add", "eva@museum.example", "--venue", "aquarium", "--role", "viewer"], input: Self.password + "\n")
        #expect(again.0 != 0 && again.2.contains("already has an account"))
        let noVenue = try await run(["staff", "add", "ola@museum.example", "--role", "viewer"], input: Self.password + "\n")
        #expect(noVenue.0 != 0 && noVenue.2.contains("--venue"))
        #expect(try await run(["staff", "list"], input: "").1 == "eva@museum.example\tmoderator\taquarium\n")

        try await server.test { client in
            let browser = try #require(try await Self.signIn(client, "eva@museum.example").1)
            #expect(try await run(["staff", "reset-password", "eva@museum.example"], input: "another long password\n").0 == 0)
            #expect(try await browser.page(client, "/staff").0 == .seeOther, "a new password ends the sessions")
            #expect(try await Self.signIn(client, "eva@museum.example", password: "another long password").1 != nil)
            #expect(try await run(["staff", "remove", "eva@museum.example"], input: "").0 == 0)
            #expect(try await Self.signIn(client, "eva@museum.example", password: "another long password").1 == nil)
        }
        #expect(try await run(["staff", "list"], input: "").1 == "")
        #expect(try await run(["staff", "remove", "eva@museum.example"], input: "").0 != 0)
    }
}
