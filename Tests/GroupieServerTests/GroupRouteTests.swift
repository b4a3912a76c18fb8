import Foundation
import GroupieServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import GroupieTestSupport
import Testing

@Suite("Groups")
struct GroupRouteTests {
    static func server() throws -> TestServer {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        return server
    }

    @Test("Creating a group: the creator is the first member; code, join URL and progress come back")
    func create() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let (response, body) = try await client.send(.post, "/api/v1/groups", json: #"{"venueId": "aquarium", "name": "Hajarna"}"#, headers: ada.auth)
            #expect(response.status == .created)
            let group = try #require(body["group"] as? [String: Any])
            let code = try #require(group["joinCode"] as? String)
            #expect((6...8).contains(code.count))
            #expect(!code.contains { "0O1IL".contains($0) })
            #expect(group["joinUrl"] as? String == "https://groupie.test/j/\(code)")
            #expect(group["name"] as? String == "Hajarna")
            #expect(group["venueName"] as? String == "Akvariet")
            #expect(group["joinable"] as? Bool == true)
            let members = try #require(group["members"] as? [[String: Any]])
            #expect(members.count == 1)
            #expect(members[0]["id"] as? String == ada.id)
            #expect(members[0]["isCreator"] as? Bool == true)
            #expect(members[0]["tasksCompleted"] as? Int == 0)
            let missions = try #require(group["missions"] as? [[String: Any]])
            #expect(missions.map { $0["id"] as? String } == ["sharks", "rays"])
            #expect(missions.map { $0["unlocked"] as? Bool } == [true, false], "rays come after sharks")
            #expect(missions.map { $0["complete"] as? Bool } == [false, false])
            #expect((missions[0]["tasks"] as? [[String: Any]])?.first?["state"] as? String == "open")

            let (_, me) = try await client.send(.get, "/api/v1/me", headers: ada.auth)
            #expect((me["group"] as? [String: Any])?["joinCode"] as? String == code)
        }
    }

    @Test("Names with quotes, backslashes and any script come back exactly")
    func jsonEscaping() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let name = #"Säl "quoted" \ back/slash 🦈 مرحبا"#
            let json = try String(decoding: JSONSerialization.data(withJSONObject: ["venueId": "aquarium", "name": name]), as: UTF8.self)
            let (created, body) = try await client.send(.post, "/api/v1/groups", json: json, headers: ada.auth)
            #expect(created.status == .created)
            let group = try #require(body["group"] as? [String: Any])
            #expect(group["name"] as? String == name)
            #expect((group["createdAt"] as? String).map { ISO8601DateFormatter().date(from: $0) != nil } == true)
        }
    }

    @Test("Creating a group of an unknown venue is 404 and creates nothing")
    func unknownVenue() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let (response, problem) = try await client.send(.post, "/api/v1/groups", json: #"{"venueId": "louvre"}"#, headers: ada.auth)
            #expect(response.status == .notFound)
            #expect(problem["code"] as? String == "venue-not-found")
            let (wrong, typeProblem) = try await client.send(.post, "/api/v1/groups", json: #"{"venueId": 7}"#, headers: ada.auth)
            #expect(wrong.status == .unprocessableContent)
            #expect(typeProblem["code"] as? String == "invalid-field")
        }
        #expect(try await server.database().counts().groups == 0)
    }

    @Test("Joining by code, typed in any case with dashes; joining another group leaves the first")
    func join() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo"), cy = try await client.newPlayer("Cy")
            let first = try await client.newGroup(by: ada)
            let second = try await client.newGroup(by: cy)
            let typed = first.code.lowercased().prefix(3) + "-" + first.code.lowercased().dropFirst(3)
            let (joined, body) = try await client.join(String(typed), as: bo)
            #expect(joined.status == .ok)
            #expect((body["group"] as? [String: Any])?["id"] as? String == first.id)
            let (again, _) = try await client.join(first.code, as: bo)
            #expect(again.status == .ok, "joining one's own group again changes nothing")

            let (changed, _) = try await client.join(second.code, as: bo)
            #expect(changed.status == .ok)
            let (_, seen) = try await client.send(.get, "/api/v1/groups/\(first.id)", headers: ada.auth)
            #expect(((seen["group"] as? [String: Any])?["members"] as? [Any])?.count == 1)
            #expect(try await client.send(.get, "/api/v1/groups/\(first.id)", headers: bo.auth).0.status == .notFound)
        }
    }

    @Test("A full group is 409, a closed group 410, an unknown code 404, a malformed code 400")
    func refusals() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            for index in 1..<4 {
                let member = try await client.newPlayer("Member \(index)")
                #expect(try await client.join(group.code, as: member).0.status == .ok)
            }
            let fifth = try await client.newPlayer("Fifth")
            let (full, fullProblem) = try await client.join(group.code, as: fifth)
            #expect(full.status == .conflict)
            #expect(fullProblem["code"] as? String == "group-full")

            let other = try await client.newGroup(by: try await client.newPlayer("Other"))
            server.clock.advance(by: 8 * 3600 + 1)
            let (closed, closedProblem) = try await client.join(other.code, as: fifth)
            #expect(closed.status == .gone)
            #expect(closedProblem["code"] as? String == "joining-time-over")

            let (unknown, unknownProblem) = try await client.join("ZZZZZZ", as: fifth)
            #expect(unknown.status == .notFound)
            #expect(unknownProblem["code"] as? String == "unknown-code")
            let (malformed, malformedProblem) = try await client.join("0OIL1!", as: fifth)
            #expect(malformed.status == .badRequest)
            #expect(malformedProblem["code"] as? String == "invalid-code")
            let (_, me) = try await client.send(.get, "/api/v1/me", headers: fifth.auth)
            #expect(me["group"] == nil || me["group"] is NSNull)
        }
    }

    @Test("Two players racing for the last place: one gets in, one gets 409")
    func raceForLastPlace() async throws {
        let server = try Self.server()
        try await server.test(.live) { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            for index in 1..<3 {
                _ = try await client.join(group.code, as: try await client.newPlayer("Member \(index)"))
            }
            let racers = [try await client.newPlayer("Racer A"), try await client.newPlayer("Racer B")]
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { tasks in
                for racer in racers {
                    tasks.addTask { try await client.join(group.code, as: racer).0.status }
                }
                return try await tasks.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.sorted { $0.code < $1.code } == [.ok, .conflict])
        }
    }

    @Test("Guessing codes does not pay: failed joins are limited per player, with Retry-After")
    func rateLimitPerPlayer() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: try await client.newPlayer("Host"))
            for _ in 0..<10 {
                #expect(try await client.join("ZZZZZZ", as: ada).0.status == .notFound)
            }
            let (limited, problem) = try await client.join(group.code, as: ada)
            #expect(limited.status == .tooManyRequests)
            #expect(problem["code"] as? String == "too-many-attempts")
            let retryAfter = try #require(limited.headers[.retryAfter].flatMap { Int($0) })
            #expect((1...600).contains(retryAfter))
            server.clock.advance(by: 601)
            #expect(try await client.join(group.code, as: ada).0.status == .ok)
        }
    }

    @Test("Failed joins are limited per client address too")
    func rateLimitPerAddress() async throws {
        var server = try Self.server()
        server.configuration.trustForwardedFor = true
        server.configuration.failedJoinsPerAddress = 3
        try await server.test { client in
            let group = try await client.newGroup(by: try await client.newPlayer("Host"))
            let address: HTTPFields = [.init("X-Forwarded-For")!: "10.0.0.1, 192.168.1.7"]
            for index in 0..<3 {
                let guesser = try await client.newPlayer("Guesser \(index)")
                #expect(try await client.join("ZZZZZZ", as: guesser, headers: address).0.status == .notFound)
            }
            let next = try await client.newPlayer("Next")
            #expect(try await client.join(group.code, as: next, headers: address).0.status == .tooManyRequests)
            let elsewhere: HTTPFields = [.init("X-Forwarded-For")!: "192.168.1.8"]
            #expect(try await client.join(group.code, as: next, headers: elsewhere).0.status == .ok)
        }
    }

    @Test("Wrong codes sent at once get no more tries than the limit, by join or by the join page", arguments: [false, true])
    func rateLimitedBurst(onPostgres: Bool) async throws {
        var server = try Self.server()
        if onPostgres { server.configuration.databaseURL = try await TestPostgres.freshDatabase() }
        server.configuration.trustForwardedFor = true
        server.configuration.failedJoinsPerAddress = 12
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let guesses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { tasks in
                for index in 0..<30 {
                    tasks.addTask { try await client.join(["ZZZZZZ", "ZZZZZY", "ZZZZZX"][index % 3], as: ada).0.status }
                }
                return try await tasks.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            // The player's limit is 10 (the address's, 12): the others are refused without a look at
            // their code. An attempt refused counts until it has answered, so a burst may get
            // fewer; one code after another then tries the rest of the limit, and no more.
            let inBurst = guesses.filter { $0 == .notFound }.count, refused = guesses.filter { $0 == .tooManyRequests }.count
            #expect(inBurst + refused == 30, "\(guesses)")
            var tried = inBurst
            while tried <= 10, try await client.join("ZZZZZV", as: ada).0.status == .notFound { tried += 1 }
            #expect(tried == 10)

            let address: HTTPFields = [.init("X-Forwarded-For")!: "10.0.0.9", .acceptLanguage: "en"]
            let pages = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { tasks in
                for _ in 0..<20 {
                    tasks.addTask { try await client.execute(uri: "/j/ZZZZZW", method: .get, headers: address) { $0.status } }
                }
                return try await tasks.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            let lookedInBurst = pages.filter { $0 == .notFound }.count, pagesRefused = pages.filter { $0 == .tooManyRequests }.count
            #expect(lookedInBurst + pagesRefused == 20, "\(pages)")
            var looked = lookedInBurst
            while looked <= 12 {
                let status = try await client.execute(uri: "/j/ZZZZZV", method: .get, headers: address) { $0.status }
                guard status == .notFound else { break }
                looked += 1
            }
            #expect(looked == 12)
        }
    }

    @Test("Leaving and removing: anyone may leave, only the creator removes; the creator's role passes on")
    func leaveAndRemove() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo"), cy = try await client.newPlayer("Cy")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            server.clock.advance(by: 1)
            _ = try await client.join(group.code, as: cy)
            let (forbidden, problem) = try await client.send(.delete, "/api/v1/groups/\(group.id)/members/\(cy.id)", headers: bo.auth)
            #expect(forbidden.status == .forbidden)
            #expect(problem["code"] as? String == "not-creator")
            #expect(try await client.send(.delete, "/api/v1/groups/\(group.id)/members/\(ada.id)", headers: ada.auth).0.status == .noContent)
            let (_, seen) = try await client.send(.get, "/api/v1/groups/\(group.id)", headers: bo.auth)
            let members = try #require((seen["group"] as? [String: Any])?["members"] as? [[String: Any]])
            #expect(members.filter { $0["isCreator"] as? Bool == true }.map { $0["name"] as? String } == ["Bo"])
            #expect(try await client.send(.delete, "/api/v1/groups/\(group.id)/members/\(cy.id)", headers: bo.auth).0.status == .noContent)
            let (gone, goneProblem) = try await client.send(.delete, "/api/v1/groups/\(group.id)/members/\(cy.id)", headers: bo.auth)
            #expect(gone.status == .notFound)
            #expect(goneProblem["code"] as? String == "member-not-found")
        }
    }

    /// Every visitor route under a group, as a stranger and as a former member: 403 or 404,
    /// always. (The staff console's group routes have their own matrix in `StaffConsoleTests`.)
    @Test("Strangers and former members see nothing of a group")
    func strangers() async throws {
        let server = try Self.server()
        let routes = try await GroupieRoutes.describe(server.configuration).filter { $0.path.contains("{groupId}") && !$0.path.hasPrefix("/staff") }
        #expect(routes.count >= 4)
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), former = try await client.newPlayer("Former"), stranger = try await client.newPlayer("Stranger")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: former)
            _ = try await client.send(.delete, "/api/v1/groups/\(group.id)/members/\(former.id)", headers: former.auth)
            for outsider in [stranger, former] {
                for route in routes {
                    let uri = route.path.replacingOccurrences(of: "{groupId}", with: group.id).replacingOccurrences(of: "{playerId}", with: ada.id)
                        .replacingOccurrences(of: "{missionId}", with: "sharks").replacingOccurrences(of: "{taskId}", with: "shark")
                    let (response, body) = try await client.send(route.method, uri, json: route.method == .get || route.method == .delete ? nil : "{}", headers: outsider.auth)
                    #expect([403, 404].contains(response.status.code), "\(route.method) \(uri) answered \(response.status)")
                    #expect(body["members"] == nil && body["group"] == nil)
                }
            }
        }
        #expect(try await server.database().counts().memberships == 2, "the outsiders' requests changed nothing")
    }

    @Test("The QR code is the join URL, for members only; its size is bounded")
    func qr() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let png = try await client.execute(uri: "/api/v1/groups/\(group.id)/qr.png?size=300", method: .get, headers: ada.auth) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                return Data(buffer: response.body)
            }
            #expect(try QRDecoder.decode(png) == "https://groupie.test/j/\(group.code)")
            try await client.execute(uri: "/api/v1/groups/\(group.id)/qr.svg", method: .get, headers: ada.auth) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/svg+xml")
                #expect(String(buffer: response.body).hasPrefix("<svg"))
            }
            for size in ["5000", "10", "big"] {
                let (response, problem) = try await client.send(.get, "/api/v1/groups/\(group.id)/qr.png?size=\(size)", headers: ada.auth)
                #expect(response.status == .unprocessableContent)
                #expect(problem["code"] as? String == "invalid-size")
            }
        }
    }

    @Test("/j/{code} is the web client with a preview of the group; names are escaped; unknown codes are 404")
    func joinPage() async throws {
        let server = try Self.server()
        try server.write("world.yaml", """
            id: world
            name: { en: World Hall, ar: قاعة العالم, ja: ワールドホール }
            languages: [en, ar, ja]
            timezone: Europe/Stockholm
            theme: { color: "#0b6e4f" }
            missions:
              - id: bones
                title: { en: Bones, ar: العظام, ja: 骨 }
                icon: icons/fish.svg
                tasks:
                  - id: skull
                    prompt: { en: Find a skull, ar: ابحث عن جمجمة, ja: 頭の骨を見つけよう }
            """)
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let (_, body) = try await client.send(.post, "/api/v1/groups", json: #"{"venueId": "aquarium", "name": "<script>x</script>"}"#, headers: ada.auth)
            let code = try #require((body["group"] as? [String: Any])?["joinCode"] as? String)
            try await client.execute(uri: "/j/\(code.lowercased())", method: .get, headers: [.acceptLanguage: "en"]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                let html = String(buffer: response.body)
                #expect(html.contains(code))
                #expect(html.contains("The Aquarium"))
                #expect(html.contains("&lt;script&gt;x&lt;/script&gt;"))
                #expect(!html.contains("<script>x"))
                #expect(html.contains("data-code=\"\(code)\""))
            }
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("<main id=\"app\""))
            }
            // Gzipped for a browser that takes it, as the client's files are.
            for uri in ["/", "/j/\(code)"] {
                try await client.execute(uri: uri, method: .get, headers: [.acceptEncoding: "gzip, deflate, br"]) { response in
                    #expect(response.headers[.contentEncoding] == "gzip", "\(uri)")
                    #expect(Array(response.body.readableBytesView.prefix(2)) == [0x1F, 0x8B], "\(uri)")
                    #expect(response.headers[.vary]?.contains("Accept-Encoding") == true)
                }
            }
            // From the first paint, the page reads in the language the web client will choose at
            // the group's venue, and names the venue in it: at the Swedish and English aquarium, a
            // Swedish phone reads Swedish and an Arabic, Japanese or German one English; at a
            // venue that speaks Arabic and Japanese too, those read their own, right to left in Arabic.
            let (_, worldBody) = try await client.send(.post, "/api/v1/groups", json: #"{"venueId": "world", "name": "<script>x</script>"}"#, headers: (try await client.newPlayer("Bo")).auth)
            let worldCode = try #require((worldBody["group"] as? [String: Any])?["joinCode"] as? String, "\(worldBody)")
            for (groupCode, accept, language, direction, words, venue) in [
                (code, "sv-SE", "sv", "ltr", "Skriv ditt namn", "Akvariet"), (code, "ar-EG,ar;q=0.9", "en", "ltr", "Type your name", "The Aquarium"),
                (code, "ja-JP", "en", "ltr", "Type your name", "The Aquarium"), (code, "de-DE", "en", "ltr", "Type your name", "The Aquarium"),
                (worldCode, "ar-EG,ar;q=0.9", "ar", "rtl", "اكتب اسمك", "قاعة العالم"), (worldCode, "ja-JP", "ja", "ltr", "名前を入力", "ワールドホール"),
                (worldCode, "sv-SE", "en", "ltr", "Type your name", "World Hall"),
            ] {
                try await client.execute(uri: "/j/\(groupCode)", method: .get, headers: [.acceptLanguage: accept]) { response in
                    let html = String(buffer: response.body)
                    #expect(html.contains("<html lang=\"\(language)\" dir=\"\(direction)\">"), "\(accept)")
                    #expect(html.contains("<section class=\"preview\" lang=\"\(language)\" dir=\"\(direction)\""), "\(accept)")
                    #expect(html.contains(words), "\(accept)")
                    #expect(response.headers[.vary] == "Accept-Language, Accept-Encoding", "a cache keeps each language apart")
                    #expect(html.contains("<bdi>&lt;script&gt;x&lt;/script&gt;</bdi>"), "the group's name apart from the page's words")
                    #expect(html.contains("<p class=\"venue\"><bdi>\(venue)</bdi></p>"), "\(accept): the venue's name in the page's language")
                    #expect(html.contains(groupCode == code ? "data-languages=\"sv en\"" : "data-languages=\"en ar ja\""), "the venue's languages, for the client to choose among")
                }
            }
            try await client.execute(uri: "/j/ZZZZZZ", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            }
            try await client.execute(uri: "/j/%3Cb%3E", method: .get, headers: [.acceptLanguage: "ja"]) { response in
                let html = String(buffer: response.body)
                #expect(response.status == .notFound && html.contains("<html lang=\"ja\" dir=\"ltr\">") && html.contains("不明なグループコード"))
                #expect(html.contains("<strong><bdi>%3Cb%3E</bdi></strong>") && !html.contains("<b>"), "the typed code as typed, never markup: \(html)")
            }
        }
    }
}

extension GroupRouteTests {
    @Test("The group document is kept per version of the group, and never shows an old one")
    func documentNeverStale() async throws {
        let server = try Self.server()
        let clock = server.clock
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            func document(_ query: String = "") async throws -> [String: Any] {
                let (_, body) = try await client.send(.get, "/api/v1/groups/\(group.id)\(query)", headers: ada.auth)
                return try #require(body["group"] as? [String: Any])
            }
            func members() async throws -> [String] {
                try (try await document()["members"] as? [[String: Any]] ?? []).map { try #require($0["name"] as? String) }
            }
            #expect(try await members() == ["Ada"])
            #expect(try await members() == ["Ada"], "read twice: the kept document")

            _ = try await client.join(group.code, as: bo)
            #expect(try await members() == ["Ada", "Bo"])
            _ = try await client.send(.patch, "/api/v1/me", json: #"{"name": "Bosse"}"#, headers: bo.auth)
            #expect(try await members() == ["Ada", "Bosse"])

            let image = try TestImages.solid(width: 300, height: 300, rgb: (9, 9, 9), ext: "jpg")
            _ = try await PhotoRouteTests.upload(client, image, as: bo, group: group.id, query: "?mission=sharks&task=shark")
            let missions = try #require(try await document()["missions"] as? [[String: Any]])
            #expect(missions.first?["complete"] as? Bool == true)

            #expect(try await document("?lang=sv")["venueName"] as? String == "Akvariet")
            #expect(try await document("?lang=en")["venueName"] as? String == "The Aquarium")

            #expect(try await document()["joinable"] as? Bool == true)
            clock.advance(by: 9 * 3600)
            #expect(try await document()["joinable"] as? Bool == false, "joinable ends with time, without an event")

            try server.write("aquarium.yaml", TestServer.aquarium().replacingOccurrences(of: "en: The Aquarium", with: "en: The Ocean Hall"))
            #expect(try await ReloadTests.eventually { try await document("?lang=en")["venueName"] as? String == "The Ocean Hall" } != nil)
        }
    }
}
