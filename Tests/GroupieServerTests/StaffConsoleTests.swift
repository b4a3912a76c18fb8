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
            (cookie(StaffSignInController.loginCookie, in: response), hiddenToken(in: String(buffer: response.body)))
        }
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .cookie: "\(StaffSignInController.loginCookie)=\(loginCookie ?? "")"]
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
            // However long one address goes on, its refused guesses do not add up to the
            // account's lock from every address.
            for _ in 0..<StaffLoginLimits.perAccount {
                let (response, _) = try await Self.signIn(client, "eva@museum.example", password: "not the password", address: "10.0.0.1")
                #expect(response.status == .tooManyRequests)
            }
            let (again, _) = try await Self.signIn(client, "eva@museum.example", address: "10.0.0.3")
            #expect(again.status == .seeOther, "one address cannot lock the member out of every other")
        }
    }

    @Test("Sign-in attempts reach their bounds: fifty from one address at any accounts, two hundred at one account from every address")
    func signInLimitsReached() async throws {
        let server = try Self.server()
        // Six accounts, so that no account meets its bound from the one address first.
        let accounts = (0..<6).map { "member\($0)@museum.example" }
        for account in accounts + ["eva@museum.example"] { try await Self.addStaff(server, account, .viewer, venues: ["aquarium"]) }
        var trusted = server
        trusted.configuration.trustForwardedFor = true
        try await trusted.test { client in
            for index in 0..<StaffLoginLimits.perAddress {
                let (response, _) = try await Self.signIn(client, accounts[index % accounts.count], password: "not the password", address: "10.1.0.1")
                #expect(response.status == .unauthorized, "guess \(index + 1)")
            }
            let (limited, none) = try await Self.signIn(client, "eva@museum.example", address: "10.1.0.1")
            #expect(limited.status == .tooManyRequests && none == nil, "the address is out of attempts, for an account it never tried too")
            let (elsewhere, _) = try await Self.signIn(client, accounts[0], address: "10.1.0.2")
            #expect(elsewhere.status == .seeOther, "the accounts it tried are not locked from another address")

            // Each guess from an address of its own: the account's own bound, from every address.
            for index in 0..<StaffLoginLimits.perAccount {
                let (response, _) = try await Self.signIn(client, "eva@museum.example", password: "not the password", address: "10.2.\(index / 200).\(index % 200 + 1)")
                #expect(response.status == .unauthorized, "guess \(index + 1)")
            }
            let (locked, _) = try await Self.signIn(client, "eva@museum.example", address: "10.3.0.1")
            #expect(locked.status == .tooManyRequests, "the account is locked from every address, the right password too")
            #expect(locked.headers[.retryAfter] != nil)
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
                #expect(try await browser.post(client, "/staff/photos/\(victim)/delete", ["reason": "test", "confirm": "yes"]).status == acted, "\(who)")
                #expect(try await browser.post(client, "/staff/groups/\(museumGroup.id)/close", ["reason": "test", "confirm": "yes"]).status
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
            #expect(try await browser.post(client, "/staff/photos/\(photoId)/delete", ["reason": "asked by the teacher", "confirm": "yes"]).status == .seeOther)
            #expect(PhotoRouteTests.blobFiles(server).isEmpty)
            #expect(try await browser.post(client, "/staff/photos/\(photoId)/delete", ["reason": "again", "confirm": "yes"]).status == .notFound)
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
}
