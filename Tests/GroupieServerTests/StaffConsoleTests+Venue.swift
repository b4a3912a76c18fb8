import Foundation
import GroupieCore
@testable import GroupieServer
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

extension StaffConsoleTests {
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
            #expect(try await browser.post(client, "/staff/groups/\(group.id)/close", ["reason": "the museum closes at five", "confirm": "yes"]).status == .seeOther)

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

    @Test("Numbers from a played history with a moved clock match the hand count, as a page and as CSV: a group playing now has not dropped off, a group nobody joined does not count, a hidden photo takes a completion back; the research export has no names")
    func numbers() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium(extraMission: CollageRouteTests.reef))
        try server.write("museum.yaml", TestServer.aquarium(id: "museum"))
        try await Self.addStaff(server, "viewer@aquarium.example", .viewer, venues: ["aquarium"])
        try await Self.addStaff(server, "viewer@museum.example", .viewer, venues: ["museum"])
        try await Self.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        try await server.test { client in
            // Ada's group does the reef: red after 1 minute, green 2 minutes later, blue 2 more.
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let first = try await client.newGroup(by: ada)
            var adaPhotos: [String] = []
            for (task, wait) in [("red", 60.0), ("green", 120), ("blue", 120)] {
                server.clock.advance(by: wait)
                let image = try TestImages.solid(width: 300, height: 200, rgb: (200, 40, 40), ext: "jpg")
                let (response, body) = try await PhotoRouteTests.upload(client, image, as: ada, group: first.id, query: "?mission=reef&task=\(task)")
                #expect(response.status == .created)
                adaPhotos.append(try #require((body["photo"] as? [String: Any])?["id"] as? String))
            }
            // Bo's group photographs red and stops there.
            let second = try await client.newGroup(by: bo)
            server.clock.advance(by: 60)
            let image = try TestImages.solid(width: 300, height: 200, rgb: (40, 200, 40), ext: "jpg")
            #expect(try await PhotoRouteTests.upload(client, image, as: bo, group: second.id, query: "?mission=reef&task=red").0.status == .created)
            let retentionCutoff = server.clock.now.addingTimeInterval(-61)
            // Table cards for a class that never came: groups nobody joined, which do not count.
            _ = try await server.database().createGroupsInAdvance(venueId: "aquarium", names: ["Table 1", "Table 2"], joinableFor: 3600, now: server.clock.now)

            let browser = try #require(try await Self.signIn(client, "viewer@aquarium.example").1)
            func csv(_ table: String) async throws -> [String] {
                let (status, text) = try await browser.page(client, "/staff/venues/aquarium/numbers/\(table)")
                #expect(status == .ok)
                return text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            }
            // 1,800,000,000 is 2027-01-15 in Stockholm.
            #expect(try await csv("days.csv") == ["date,groups_started,missions_completed", "2027-01-15,2,1"])
            // Bo's group took its photo a moment ago: still playing, not dropped off, nothing skipped.
            #expect(try await csv("missions.csv") == [
                "mission,started,completed,still_playing,drop_off,median_minutes", "sharks,0,0,0,0,", "rays,0,0,0,0,", "reef,2,1,1,0,4.0",
            ])
            #expect(try await csv("tasks.csv").suffix(3) == ["reef,red,2,0,0.0", "reef,green,1,0,2.0", "reef,blue,1,0,4.0"])
            // Half an hour without a photo: it has stopped playing, and dropped off the reef.
            server.clock.advance(by: VisitNumbers.quietAfter)
            #expect(try await csv("missions.csv").last == "reef,2,1,0,1,4.0")
            #expect(try await csv("tasks.csv").suffix(3) == ["reef,red,2,0,0.0", "reef,green,1,1,2.0", "reef,blue,1,1,4.0"])
            // Hiding Ada's blue photo takes the completion back; restoring it completes the reef once more.
            let moderator = try #require(try await Self.signIn(client, "mod@aquarium.example").1)
            #expect(try await moderator.post(client, "/staff/photos/\(adaPhotos[2])/hide", ["reason": "a face"]).status == .seeOther)
            #expect(try await csv("days.csv") == ["date,groups_started,missions_completed", "2027-01-15,2,0"])
            #expect(try await csv("missions.csv").last == "reef,2,0,0,2,")
            #expect(try await moderator.post(client, "/staff/photos/\(adaPhotos[2])/restore").status == .seeOther)
            #expect(try await csv("missions.csv").last?.hasPrefix("reef,2,1,0,1,") == true)
            let research = try await csv("research.csv")
            // The header; Ada's group: start, 3 photos, 3 tasks, the mission; Bo's: start, a photo, a
            // task; the hiding: the task undone, the mission uncompleted; the restoring: the task
            // and the mission, not the photo again (one line per photo). No table cards.
            let expectedRows = 16
            #expect(research.count == expectedRows)
            #expect(research.first == "group,event,mission,task,at")
            #expect(research.filter { $0.hasPrefix(first.id + ",mission-completed,reef,,") }.count == 2)
            #expect(research.filter { $0.hasPrefix(first.id + ",mission-uncompleted,reef,,") }.count == 1)
            #expect(research.filter { $0.hasPrefix(first.id + ",photo-added,reef,") }.count == 3, "Ada's three photos, the restored one once")
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
            #expect(try await database.visitTally(venueId: "aquarium").missions["reef"]?.filter { $0.value > 0 }.count == 2)
            #expect(try await database.visitTally(venueId: "aquarium").photosPerGroup.filter { $0.value > 0 } == [1: 1, 3: 1], "no table cards; Ada's restored photo once")
            #expect(try await client.send(.delete, "/api/v1/me", headers: bo.auth).0.status == .noContent)
            // Ada's group was made more than a minute before Bo's: retention takes it alone.
            #expect(try await database.deleteGroups(createdBefore: retentionCutoff).groups == 1)
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
            let tooLong = try await moderator.post(client, "/staff/venues/aquarium/cards", ["count": "2", "label": String(repeating: "x", count: 61)])
            #expect(tooLong.status == .unprocessableContent)
            #expect(try await server.database().counts().groups == before, "a label too long makes no group")
            let response = try await moderator.post(client, "/staff/venues/aquarium/cards", ["count": "5", "name": "Class 5B", "label": " Class 5B, 09:10 "])
            #expect(response.status == .ok && response.headers[.contentType] == "application/pdf")
            let pdf = Data(buffer: response.body)
            let info = try PDFTools.info(pdf)
            #expect(info.split(separator: "\n").contains { $0.hasPrefix("Pages:") && $0.split(separator: " ").last == "2" }, "four cards a page")
            let text = try PDFTools.text(pdf)
            for number in 1...5 { #expect(text.contains("Class 5B \(number)")) }
            #expect(try await server.database().counts().groups == before + 5)
            let now = server.clock.now
            let batches = try await server.database().groupBatches(venueId: "aquarium", createdFrom: now.addingTimeInterval(-60), before: now.addingTimeInterval(60))
            #expect(batches.map(\.label) == ["Class 5B, 09:10"] && batches.first?.groups.count == 5, "one batch, its label trimmed")

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
            #expect(audit.contains("table cards made") && audit.contains("Class 5B, 09:10: 5 groups: Class 5B 1 to Class 5B 5"))
        }
    }

    @Test("Form bodies: plus signs, escapes and lists decode; a name given twice, a nested name, broken escapes and bytes that are not UTF-8 are refused")
    func formDecoding() throws {
        #expect(
            try StaffFormFields.decode("a=b+c&e=&n=%C3%A5%2B&venue%5B%5D=x&venue[]=y")
                == StaffFormFields(text: ["a": "b c", "e": "", "n": "å+"], lists: ["venue": ["x", "y"]])
        )
        for broken in ["a=%zz", "a=%", "a=%4", "%=1", "a=%E2%82", "a=%FF", "a=1&a=2", "a[b]=1", "a=1&a[]=2", "a=1&d"] {
            #expect(throws: (any Error).self, "\(broken)") { try StaffFormFields.decode(broken) }
        }
        #expect(try StaffFormFields.decode("") == StaffFormFields())
    }

    @Test("A hostile form body is a 400 and the server goes on")
    func hostileForm() async throws {
        let server = try Self.server()
        try await server.test { client in
            // Posted as the sign-in page's own form would be (its cookie, its token), so that the
            // CSRF check, which answers 403 to a post without them, cannot be what refuses it.
            let (loginCookie, token) = try await client.execute(uri: "/staff/login", method: .get) { response in
                (Self.cookie(StaffSignInController.loginCookie, in: response), Self.hiddenToken(in: String(buffer: response.body)))
            }
            let headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .cookie: "\(StaffSignInController.loginCookie)=\(try #require(loginCookie))"]
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
        let data = server.configuration.dataDirectory, missions = server.configuration.missionsDirectory
        // On a thread of its own: each command hashes a password, which takes a while.
        @Sendable func run(_ arguments: [String], input: String) async throws -> (Int32, String, String) {
            try await offPool { try runBlocking(arguments, input: input) }
        }
        @Sendable func runBlocking(_ arguments: [String], input: String) throws -> (Int32, String, String) {
            let result = try ChildProcess.run(
                CommandLineTests.executable,
                arguments + ["--data", data] + (arguments.dropFirst().first.map { ["add", "set-role"].contains($0) } == true ? ["--missions", missions] : []),
                input: Data(input.utf8)
            )
            return (result.status, result.output, result.errors)
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
        // A misspelt venue is refused, naming the venues the mission files declare; one whose file is still to come is taken when said.
        let misspelt = try await run(["staff", "add", "ola@museum.example", "--venue", "aquarim", "--role", "viewer"], input: Self.password + "\n")
        #expect(misspelt.0 != 0 && misspelt.2.contains("declares the venue 'aquarim'") && misspelt.2.contains("The venues are: aquarium, museum."), "\(misspelt.2)")
        let toCome = try await run(["staff", "add", "ola@museum.example", "--venue", "planetarium", "--venue-to-come", "--role", "viewer"], input: Self.password + "\n")
        #expect(toCome.0 == 0 && toCome.1.contains("ola@museum.example added as viewer of planetarium"), "\(toCome.2)")
        // An admin has every venue: a --venue beside it would be ignored, so it is refused.
        let adminVenue = try await run(["staff", "add", "root@museum.example", "--venue", "aquarium", "--role", "admin"], input: Self.password + "\n")
        #expect(adminVenue.0 != 0 && adminVenue.2.contains("leave out --venue"), "\(adminVenue.2)")
        let setRole = try await run(["staff", "set-role", "ola@museum.example", "--role", "moderator", "--venue", "museum"], input: "")
        #expect(setRole.0 == 0 && setRole.1.contains("ola@museum.example is now moderator of museum"), "\(setRole.2)")
        #expect(try await run(["staff", "set-role", "ola@museum.example", "--role", "admin", "--venue", "museum"], input: "").0 != 0)
        #expect(try await run(["staff", "unlock", "ola@museum.example"], input: "").1.contains("may sign in again"))
        #expect(try await run(["staff", "unlock", "nobody@museum.example"], input: "").0 != 0)
        #expect(try await run(["staff", "remove", "ola@museum.example"], input: "").0 == 0)
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
