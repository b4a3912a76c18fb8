import Foundation
import GroupieCore
import GroupieStorage
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GroupieServer

@Suite("Messages from staff")
struct StaffMessageTests {
    static func server() throws -> TestServer {
        var server = try StaffConsoleTests.server()
        server.configuration.eventHeartbeat = .milliseconds(300)
        return server
    }

    /// The `staff-message` events stored for a group, as their texts.
    static func stored(_ server: TestServer, _ groupId: String) async throws -> [String] {
        try await server.database().events(groupId: groupId, after: 0, limit: 100).filter { $0.kind == .staffMessage }.map { event in
            let object = try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: String]
            return object?["text"] ?? ""
        }
    }

    @Test("A member of staff sends six messages a minute and sixty an hour to a venue; the next waits, as the page says, and reaches no group")
    func messageLimits() async throws {
        let server = try Self.server()
        try await StaffConsoleTests.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        try await StaffConsoleTests.addStaff(server, "other@aquarium.example", .moderator, venues: ["aquarium"])
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let browser = try #require(try await StaffConsoleTests.signIn(client, "mod@aquarium.example").1)
            let (_, page) = try await browser.page(client, "/staff/venues/aquarium/messages")
            #expect(page.contains("You may send \(StaffMessageLimits.perMinute) messages a minute and \(StaffMessageLimits.perHour) an hour"))
            var sent = 0
            func send(_ by: StaffBrowser) async throws -> TestResponse {
                sent += 1
                return try await by.post(client, "/staff/venues/aquarium/messages", ["group": group.id, "text": "Message \(sent)"])
            }
            for minute in 0..<(StaffMessageLimits.perHour / StaffMessageLimits.perMinute) {
                for _ in 0..<StaffMessageLimits.perMinute {
                    #expect(try await send(browser).status == .seeOther, "message \(sent), minute \(minute)")
                }
                let refused = try await send(browser)
                #expect(refused.status == .tooManyRequests && String(buffer: refused.body).contains("too-many-messages"), "minute \(minute)")
                let wait = try #require(refused.headers[.retryAfter].flatMap { Int($0) })
                // Within the minute, until the hour's sixtieth message makes the wait the hour's.
                #expect(sent - minute - 1 < StaffMessageLimits.perHour ? (1...60).contains(wait) : wait > 60, "minute \(minute): \(wait) s")
                server.clock.advance(by: 61)
            }
            let hourly = try await send(browser)
            #expect(hourly.status == .tooManyRequests)
            #expect(try #require(hourly.headers[.retryAfter].flatMap { Int($0) }) > 60, "the hour's bound")
            #expect(try await Self.stored(server, group.id).count == StaffMessageLimits.perHour, "no refused message reached the group")
            // The bounds are each member's own.
            let other = try #require(try await StaffConsoleTests.signIn(client, "other@aquarium.example").1)
            #expect(try await send(other).status == .seeOther)
        }
    }

    @Test("A message reaches a member's open stream at once, is stored with the group's events and in the audit log, and is counted")
    func messageToOneGroup() async throws {
        let server = try Self.server()
        try await StaffConsoleTests.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            let token = try await EventTests.streamToken(client, group: group.id, player: bo)
            let stream = try EventStreamReader(port: port, path: "/api/v1/groups/\(group.id)/events?token=\(token)")
            _ = await stream.read(for: 120) { $0.contains("member-joined") }

            let browser = try #require(try await StaffConsoleTests.signIn(client, "mod@aquarium.example").1)
            let (status, page) = try await browser.page(client, "/staff/venues/aquarium/messages?group=\(group.id)")
            #expect(status == .ok)
            #expect(page.contains(#"<option value="\#(group.id)" selected>"#), "the group asked for is chosen")
            let sent = try await browser.post(
                client, "/staff/venues/aquarium/messages", ["group": group.id, "text": "  The shark tunnel\nis <b>closed</b> today "]
            )
            #expect(sent.status == .seeOther)
            #expect(sent.headers[.location] == "/staff/venues/aquarium/messages?group=\(group.id)")

            let text = await stream.read(for: 120) { $0.contains("staff-message") }
            #expect(stream.events.last?.type == "staff-message")
            #expect(text.contains(#"{"text":"The shark tunnel is <b>closed</b> today"}"#), "one line of plain text, as typed")
            #expect(try await Self.stored(server, group.id) == ["The shark tunnel is <b>closed</b> today"])

            let (_, audit) = try await browser.page(client, "/staff/audit")
            #expect(audit.contains("message sent to a group") && audit.contains("The shark tunnel is &lt;b&gt;closed&lt;/b&gt; today"))
            let (_, messages) = try await browser.page(client, "/staff/venues/aquarium/messages")
            #expect(messages.contains("The shark tunnel is &lt;b&gt;closed&lt;/b&gt; today") && !messages.contains("<b>closed</b>"))
            // The time as the venue's clocks show it.
            let at = try #require(try await server.database().auditLog(venueIds: nil, staffEmail: "", limit: 100).first { $0.action == AuditAction.messageToGroup.rawValue }?.at)
            var stockholm = Calendar(identifier: .gregorian)
            stockholm.timeZone = try #require(TimeZone(identifier: "Europe/Stockholm"))
            let clock = stockholm.dateComponents([.hour, .minute], from: at)
            #expect(messages.contains(String(format: "\">%02d:%02d, ", clock.hour ?? 0, clock.minute ?? 0)))
            #expect(messages.contains("Europe/Stockholm"))
            let (_, numbers) = try await browser.page(client, "/staff/venues/aquarium/numbers")
            #expect(numbers.contains("1 message from staff"))
        }
    }

    @Test("A message to every group reaches the venue's open groups that someone is in, and no other venue's")
    func messageToEveryGroup() async throws {
        let server = try Self.server()
        try await StaffConsoleTests.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let cy = try await client.newPlayer("Cy"), di = try await client.newPlayer("Di")
            let first = try await client.newGroup(by: ada), second = try await client.newGroup(by: bo)
            let closed = try await client.newGroup(by: cy), museum = try await client.newGroup(by: di, venue: "museum")
            let browser = try #require(try await StaffConsoleTests.signIn(client, "mod@aquarium.example").1)
            #expect(try await browser.post(client, "/staff/groups/\(closed.id)/close", ["reason": "done", "confirm": "yes"]).status == .seeOther)

            let sent = try await browser.post(client, "/staff/venues/aquarium/messages", ["group": "", "text": "We close in 15 minutes"])
            #expect(sent.status == .seeOther && sent.headers[.location] == "/staff/venues/aquarium/messages")
            #expect(try await Self.stored(server, first.id) == ["We close in 15 minutes"])
            #expect(try await Self.stored(server, second.id) == ["We close in 15 minutes"])
            #expect(try await Self.stored(server, closed.id).isEmpty, "a closed group is not playing")
            #expect(try await Self.stored(server, museum.id).isEmpty, "another venue's group")
            #expect(try await server.database().staffMessageCount(venueId: "aquarium") == 2)
            let (_, audit) = try await browser.page(client, "/staff/audit")
            #expect(audit.contains("message sent to every group") && audit.contains("We close in 15 minutes"))
        }
    }

    @Test("Visitors, viewers, staff of another venue, empty and too long messages are refused, and nothing changes")
    func refusals() async throws {
        let server = try Self.server()
        try await StaffConsoleTests.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        try await StaffConsoleTests.addStaff(server, "viewer@aquarium.example", .viewer, venues: ["aquarium"])
        try await StaffConsoleTests.addStaff(server, "mod@museum.example", .moderator, venues: ["museum"])
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), di = try await client.newPlayer("Di")
            let group = try await client.newGroup(by: ada), museum = try await client.newGroup(by: di, venue: "museum")
            let before = try await server.database().counts()
            let uri = "/staff/venues/aquarium/messages"

            // A visitor has no session: the console's sign-in, not a message.
            let visitor = try await client.execute(
                uri: uri, method: .post, headers: [.contentType: "application/x-www-form-urlencoded", .authorization: "Bearer \(ada.token)"],
                body: ByteBuffer(string: StaffConsoleTests.form(["group": group.id, "text": "hello"]))
            ) { $0 }
            #expect(visitor.status != .seeOther || visitor.headers[.location] != uri)

            let viewer = try #require(try await StaffConsoleTests.signIn(client, "viewer@aquarium.example").1)
            #expect(try await viewer.page(client, uri).0 == .ok, "a viewer reads the messages sent")
            #expect(try await viewer.post(client, uri, ["group": group.id, "text": "hello"]).status == .forbidden)

            let other = try #require(try await StaffConsoleTests.signIn(client, "mod@museum.example").1)
            #expect(try await other.page(client, uri).0 == .notFound)
            #expect(try await other.post(client, uri, ["group": group.id, "text": "hello"]).status == .notFound)

            let moderator = try #require(try await StaffConsoleTests.signIn(client, "mod@aquarium.example").1)
            #expect(try await moderator.post(client, uri, ["group": group.id, "text": "hello"], csrf: "forged").status == .forbidden)
            let empty = try await moderator.post(client, uri, ["group": group.id, "text": " \n "])
            #expect(empty.status == .unprocessableContent)
            #expect(String(buffer: empty.body).contains("empty"))
            let long = try await moderator.post(client, uri, ["group": group.id, "text": String(repeating: "a", count: 201)])
            #expect(long.status == .unprocessableContent)
            #expect(String(buffer: long.body).contains("at most 200 characters"))
            #expect(try await moderator.post(client, uri, ["group": museum.id, "text": "hello"]).status == .notFound, "a group of another venue")

            #expect(try await Self.stored(server, group.id).isEmpty)
            #expect(try await Self.stored(server, museum.id).isEmpty)
            #expect(try await server.database().counts() == before)
            #expect(try await server.database().auditLog(venueIds: nil, staffEmail: "", limit: 100).filter { StaffMessageController.actions.contains($0.action) }.isEmpty)
        }
    }
}
