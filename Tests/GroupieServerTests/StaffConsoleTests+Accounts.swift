import Foundation
import GroupieCore
@testable import GroupieServer
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

extension StaffConsoleTests {
    /// Ada's group with one photo of hers.
    static func groupWithPhoto(_ client: some TestClientProtocol, _ image: String) async throws -> (TestPlayer, (id: String, code: String), String) {
        let ada = try await client.newPlayer("Ada")
        let group = try await client.newGroup(by: ada)
        let (_, body) = try await PhotoRouteTests.upload(client, image, as: ada, group: group.id)
        return (ada, group, try #require((body["photo"] as? [String: Any])?["id"] as? String))
    }

    @Test("Refusals of the console are pages with a way back and what was typed; the JSON API keeps its problem documents")
    func errorPages() async throws {
        let server = try Self.server()
        try await Self.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        let image = try TestImages.jpegWithEXIF(width: 800, height: 600, orientation: 1)
        try await server.test { client in
            let (ada, group, photoId) = try await Self.groupWithPhoto(client, image)
            let browser = try #require(try await Self.signIn(client, "mod@aquarium.example").1)
            // Signed in again in another tab: the form's token is stale.
            let other = try #require(try await Self.signIn(client, "mod@aquarium.example").1)
            var headers = browser.headers
            headers[.contentType] = "application/x-www-form-urlencoded"
            headers[.referer] = "https://localhost/staff/groups/\(group.id)"
            let stale = try await client.execute(
                uri: "/staff/photos/\(photoId)/hide", method: .post, headers: headers,
                body: ByteBuffer(string: Self.form(["csrf": other.csrf, "reason": "Blurry <b>face</b>"]))
            ) { $0 }
            let html = String(buffer: stale.body)
            #expect(stale.status == .forbidden && stale.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(html.contains("This form was out of date") && !html.contains("\"code\""))
            #expect(html.contains("value=\"Blurry &lt;b&gt;face&lt;/b&gt;\""), "what was typed is kept, escaped")
            #expect(html.contains("action=\"/staff/photos/\(photoId)/hide\"") && html.contains("name=\"csrf\" value=\"\(browser.csrf)\""))
            #expect(html.contains("href=\"/staff/groups/\(group.id)\""), "back to the page the form was on")
            // Sending it again from that page works.
            #expect(try await browser.post(client, "/staff/photos/\(photoId)/hide", ["reason": "Blurry face"]).status == .seeOther)

            // A refused reason (422), an unknown page (404), a session that ended (401): pages too.
            let refused = try await browser.post(client, "/staff/groups/\(group.id)/close", ["reason": "  ", "confirm": "yes"])
            #expect(refused.status == .unprocessableContent && String(buffer: refused.body).contains("Give a reason"))
            #expect(refused.headers[.contentType]?.hasPrefix("text/html") == true)
            let (missing, missingPage) = try await browser.page(client, "/staff/no-such-page")
            #expect(missing == .notFound && missingPage.contains("Not found") && missingPage.contains("href=\"/staff\""))
            let (unknownGroup, unknownPage) = try await browser.page(client, "/staff/groups/nope")
            #expect(unknownGroup == .notFound && unknownPage.contains("There is no such group") && unknownPage.contains("Sign out"))
            let ended = try await StaffBrowser(cookie: "ended-session", csrf: "x").post(client, "/staff/groups/\(group.id)/close", ["reason": "home time"])
            let endedPage = String(buffer: ended.body)
            #expect(ended.status == .unauthorized && endedPage.contains("href=\"/staff/login\"") && endedPage.contains("home time"))

            // The JSON API is unchanged.
            let (api, problem) = try await client.send(.get, "/api/v1/groups/nope", headers: ada.auth)
            #expect(api.status == .notFound && api.headers[.contentType] == "application/problem+json" && problem["code"] as? String == "group-not-found")
        }
    }

    @Test("Deleting and closing need a ticked confirmation; a closed group is reopened, with its event, and takes photos again")
    func confirmAndReopen() async throws {
        let server = try Self.server()
        try await Self.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        try await Self.addStaff(server, "viewer@aquarium.example", .viewer, venues: ["aquarium"])
        let image = try TestImages.jpegWithEXIF(width: 800, height: 600, orientation: 1)
        try await server.test { client in
            let (ada, group, photoId) = try await Self.groupWithPhoto(client, image)
            let browser = try #require(try await Self.signIn(client, "mod@aquarium.example").1)

            let (_, page) = try await browser.page(client, "/staff/groups/\(group.id)")
            #expect(page.contains("Delete for good") && page.contains("name=\"confirm\"") && page.contains("Reason for deleting"))
            let unconfirmed = try await browser.post(client, "/staff/photos/\(photoId)/delete", ["reason": "not of the visit"])
            #expect(unconfirmed.status == .unprocessableContent && String(buffer: unconfirmed.body).contains("not of the visit"))
            #expect(String(buffer: unconfirmed.body).contains("type=\"checkbox\" name=\"confirm\""), "the page asks for the confirmation again")
            #expect(try await browser.post(client, "/staff/groups/\(group.id)/close", ["reason": "home time"]).status == .unprocessableContent)
            let (_, still) = try await client.send(.get, "/api/v1/groups/\(group.id)", headers: ada.auth)
            #expect((still["group"] as? [String: Any])?["closedReason"] == nil, "nothing changed")

            #expect(try await browser.post(client, "/staff/groups/\(group.id)/close", ["reason": "home time", "confirm": "yes"]).status == .seeOther)
            let (_, closedPage) = try await browser.page(client, "/staff/groups/\(group.id)")
            #expect(closedPage.contains("action=\"/staff/groups/\(group.id)/reopen\""))
            let viewer = try #require(try await Self.signIn(client, "viewer@aquarium.example").1)
            #expect(try await viewer.post(client, "/staff/groups/\(group.id)/reopen").status == .forbidden)
            #expect(try await browser.post(client, "/staff/groups/\(group.id)/reopen").status == .seeOther)

            let (_, reopened) = try await client.send(.get, "/api/v1/groups/\(group.id)", headers: ada.auth)
            #expect((reopened["group"] as? [String: Any])?["closedReason"] == nil)
            let (uploaded, _) = try await PhotoRouteTests.upload(client, image, as: ada, group: group.id)
            #expect(uploaded.status == .created)
            let events = try await server.database().events(groupId: group.id, after: 0, limit: 100).map(\.kind)
            #expect(events.suffix(3) == [.groupClosed, .groupReopened, .photoAdded])
            let (_, audit) = try await browser.page(client, "/staff/audit")
            #expect(audit.contains("group reopened") && audit.contains("group closed"))
        }
    }

    @Test("An admin unlocks an account locked from an address; reset-password lifts the lock too")
    func unlock() async throws {
        let server = try Self.server()
        try await Self.addStaff(server, "admin@groupie.example", .admin)
        try await Self.addStaff(server, "eva@museum.example", .viewer, venues: ["aquarium"])
        var trusted = server
        trusted.configuration.trustForwardedFor = true
        let accounts = try await StaffAccounts.open(dataDirectory: server.configuration.dataDirectory, databaseURL: server.configuration.databaseURL, clock: { [clock = server.clock] in clock.now })
        try await trusted.test { client in
            func lockOut() async throws {
                for _ in 0..<StaffLoginLimits.perAccountAndAddress {
                    _ = try await Self.signIn(client, "eva@museum.example", password: "not the password", address: "10.0.0.1")
                }
                #expect(try await Self.signIn(client, "eva@museum.example", address: "10.0.0.1").0.status == .tooManyRequests)
            }
            try await lockOut()
            let admin = try #require(try await Self.signIn(client, "admin@groupie.example", address: "10.0.0.9").1)
            let eva = try #require(try await accounts.list().first { $0.email == "eva@museum.example" })
            #expect(try await admin.post(client, "/staff/accounts/\(eva.id)/unlock").status == .seeOther)
            server.clock.advance(by: 1)
            #expect(try await Self.signIn(client, "eva@museum.example", address: "10.0.0.1").1 != nil, "unlocked")

            try await lockOut()
            try await accounts.resetPassword(email: "eva@museum.example", password: "a brand new password")
            server.clock.advance(by: 1)
            #expect(try await Self.signIn(client, "eva@museum.example", password: "a brand new password", address: "10.0.0.1").1 != nil)

            try await lockOut()
            try await accounts.unlock(email: "eva@museum.example")
            server.clock.advance(by: 1)
            #expect(try await Self.signIn(client, "eva@museum.example", password: "a brand new password", address: "10.0.0.1").1 != nil)
            let (_, audit) = try await admin.page(client, "/staff/audit")
            #expect(audit.contains("sign-in lock lifted"))
        }
    }

    @Test("An admin adds, changes and removes staff in the console; everyone changes their own password; others are refused")
    func accountManagement() async throws {
        let server = try Self.server()
        try await Self.addStaff(server, "admin@groupie.example", .admin)
        try await Self.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        let accounts = try await StaffAccounts.open(dataDirectory: server.configuration.dataDirectory, databaseURL: server.configuration.databaseURL)
        try await server.test { client in
            let moderator = try #require(try await Self.signIn(client, "mod@aquarium.example").1)
            #expect(try await moderator.page(client, "/staff/accounts").0 == .forbidden)
            let forbidden = try await moderator.post(client, "/staff/accounts", ["email": "x@museum.example", "password": Self.password, "role": "admin"])
            #expect(forbidden.status == .forbidden)
            #expect(try await accounts.list().count == 2, "nothing changed")
            #expect(!(try await moderator.page(client, "/staff").1.contains("href=\"/staff/accounts\"")))

            let admin = try #require(try await Self.signIn(client, "admin@groupie.example").1)
            let (status, page) = try await admin.page(client, "/staff/accounts")
            #expect(status == .ok && page.contains("mod@aquarium.example") && page.contains("name=\"venue[]\" value=\"museum\""))
            #expect(try await admin.post(
                client, "/staff/accounts", ["email": "New@Museum.example", "password": Self.password, "role": "viewer", "venue[]": "museum"]
            ).status == .seeOther)
            var added = try #require(try await accounts.list().first { $0.email == "new@museum.example" })
            #expect(added.role == .viewer && added.venueIds == ["museum"])
            let noVenue = try await admin.post(client, "/staff/accounts", ["email": "b@museum.example", "password": Self.password, "role": "viewer"])
            #expect(noVenue.status == .unprocessableContent && String(buffer: noVenue.body).contains("b@museum.example"))
            let taken = try await admin.post(client, "/staff/accounts", ["email": "new@museum.example", "password": Self.password, "role": "viewer", "venue[]": "museum"])
            #expect(taken.status == .conflict && String(buffer: taken.body).contains("Code for whoever runs the server: email-taken"))

            // Two venues ticked: the name twice.
            var headers = admin.headers
            headers[.contentType] = "application/x-www-form-urlencoded"
            let twoVenues = try await client.execute(
                uri: "/staff/accounts/\(added.id)/role", method: .post, headers: headers,
                body: ByteBuffer(string: "csrf=\(admin.csrf)&role=moderator&venue%5B%5D=aquarium&venue%5B%5D=museum")
            ) { $0.status }
            #expect(twoVenues == .seeOther)
            added = try #require(try await accounts.list().first { $0.email == "new@museum.example" })
            #expect(added.role == .moderator && added.venueIds == ["aquarium", "museum"])
            #expect(try await admin.post(client, "/staff/accounts/\(added.id)/role", ["role": "admin", "venue[]": "aquarium"]).status == .unprocessableContent)

            // Everyone changes their own password; their other sessions end, this one goes on.
            let newcomer = try #require(try await Self.signIn(client, "new@museum.example").1)
            let elsewhere = try #require(try await Self.signIn(client, "new@museum.example").1)
            let wrong = try await newcomer.post(client, "/staff/password", ["currentPassword": "wrong one!!", "newPassword": "a new long password", "repeatPassword": "a new long password"])
            #expect(wrong.status == .unprocessableContent)
            let changed = try await newcomer.post(client, "/staff/password", ["currentPassword": Self.password, "newPassword": "a new long password", "repeatPassword": "a new long password"])
            #expect(changed.status == .seeOther)
            let cookie = try #require(Self.cookie(StaffSession.cookieName, in: changed))
            #expect(try await StaffBrowser(cookie: cookie, csrf: "").page(client, "/staff").0 == .ok)
            #expect(try await elsewhere.page(client, "/staff").0 == .seeOther)
            #expect(try await Self.signIn(client, "new@museum.example", password: "a new long password").1 != nil)

            let self_ = try #require(try await accounts.list().first { $0.email == "admin@groupie.example" })
            #expect(try await admin.post(client, "/staff/accounts/\(self_.id)/remove", ["confirm": "yes"]).status == .unprocessableContent)
            let unconfirmed = try await admin.post(client, "/staff/accounts/\(added.id)/remove")
            #expect(unconfirmed.status == .unprocessableContent, "needs the confirmation")
            #expect(String(buffer: unconfirmed.body).contains("Code for whoever runs the server: confirmation-required"))
            #expect(try await admin.post(client, "/staff/accounts/\(added.id)/remove", ["confirm": "yes"]).status == .seeOther)
            #expect(try await accounts.list().map(\.email) == ["admin@groupie.example", "mod@aquarium.example"])
            let (_, audit) = try await admin.page(client, "/staff/audit")
            #expect(audit.contains("staff added") && audit.contains("staff role changed") && audit.contains("staff removed"))
        }
    }
}

extension StaffConsoleTests {
    @Test("Hiding a hidden photo or restoring a shown one changes nothing and writes no line to the audit log")
    func repeatedModerationAuditsOnce() async throws {
        let server = try Self.server()
        try await Self.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        let image = try TestImages.jpegWithEXIF(width: 800, height: 600, orientation: 1)
        try await server.test { client in
            let (_, _, photoId) = try await Self.groupWithPhoto(client, image)
            let browser = try #require(try await Self.signIn(client, "mod@aquarium.example").1)
            #expect(try await browser.post(client, "/staff/photos/\(photoId)/restore").status == .seeOther, "shown already")
            for _ in 0..<2 { #expect(try await browser.post(client, "/staff/photos/\(photoId)/hide", ["reason": "Blurry face"]).status == .seeOther) }
            for _ in 0..<2 { #expect(try await browser.post(client, "/staff/photos/\(photoId)/restore").status == .seeOther) }
            let actions = try await server.database().auditLog(venueIds: nil, staffEmail: "mod@aquarium.example", limit: 20).map(\.action)
            #expect(actions.filter { $0.hasPrefix("photo") } == ["photo restored", "photo hidden"], "\(actions)")
        }
    }
}
