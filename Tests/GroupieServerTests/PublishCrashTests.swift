import Foundation
import GroupieTestSupport
import Testing

/// Every change is committed with its events: a server killed after the commit and before any
/// stream heard of it replays the event after restart, from the stream's `Last-Event-ID`. The
/// real binary kills itself at that point (`GROUPIE_FAULT_CRASH_BEFORE_PUBLISHING`).
@Suite("Crashes between a commit and its publication", .serialized)
struct PublishCrashTests {
    static let email = "admin@museum.test"
    static let password = "correct horse battery staple"

    /// A change, the event kind whose publication is cut off, and whether it needs a photo
    /// hidden beforehand.
    enum Action: String, CaseIterable, CustomTestStringConvertible {
        /// `erasePhoto`: the erasure of a member whose photo the group had, cut off before its
        /// `photo-removed`; the replay brings that and the `member-left` of the same commit.
        case remove, rename, erase, erasePhoto, hide, restore, staffDelete, close, reopen, message
        var testDescription: String { rawValue }

        var kind: String {
            switch self {
            case .remove, .erase: "member-left"
            case .rename: "member-renamed"
            case .hide, .staffDelete, .erasePhoto: "photo-removed"
            case .restore: "photo-added"
            case .close: "group-closed"
            case .reopen: "group-reopened"
            case .message: "staff-message"
            }
        }
    }

    @Test("the event of a change whose server died before publishing it replays after restart", arguments: Action.allCases)
    func replays(_ action: Action) async throws {
        let data = try ScratchFolder.make("groupie-publish-crash")
        defer { try? FileManager.default.removeItem(atPath: data) }
        try addStaff(data: data)

        let setup = try CrashTests.Server(data: data)
        defer { setup.stop() }
        try await setup.waitUntilHealthy()
        let ada = try await Visitor.make("Ada", on: setup)
        let bo = try await Visitor.make("Bo", on: setup)
        let created = try await setup.json("POST", "/api/v1/groups", ["venueId": "science-centre"], token: ada.token)
        let group = try #require(created["group"] as? [String: Any])
        let groupId = try #require(group["id"] as? String), code = try #require(group["joinCode"] as? String)
        _ = try await setup.json("POST", "/api/v1/groups/join", ["code": code], token: bo.token)
        let image = try Data(contentsOf: URL(fileURLWithPath: TestImages.solid(width: 640, height: 480, rgb: (40, 90, 160), ext: "jpg")))
        let (uploaded, body) = try await setup.request("POST", "/api/v1/groups/\(groupId)/photos", body: image, token: bo.token, contentType: "image/jpeg")
        #expect(uploaded == 201)
        let photoId = try #require(((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["photo"] as? [String: Any])?["id"] as? String)
        if action == .restore {
            let staff = try await StaffCurl.signIn(port: setup.port)
            #expect(try staff.post("/staff/photos/\(photoId)/hide", ["reason": "Blurred face"]) == 303)
        }
        if action == .reopen {
            let staff = try await StaffCurl.signIn(port: setup.port)
            #expect(try staff.post("/staff/groups/\(groupId)/close", ["reason": "The class has left", "confirm": "yes"]) == 303)
        }
        let before = try #require(try await setup.json("POST", "/api/v1/groups/\(groupId)/events/token", [:], token: ada.token)["latestEventId"] as? String)
        setup.stop()

        // The change, on a server that dies once it is committed and before it is published.
        let doomed = try CrashTests.Server(data: data, environment: ["GROUPIE_FAULT_CRASH_BEFORE_PUBLISHING": action.kind])
        defer { doomed.stop() }
        try await doomed.waitUntilHealthy()
        let staff = try await StaffCurl.signIn(port: doomed.port)
        switch action {
        case .remove: _ = try? await doomed.request("DELETE", "/api/v1/groups/\(groupId)/members/\(bo.id)", token: ada.token)
        case .rename: _ = try? await doomed.request("PATCH", "/api/v1/me", body: Data(#"{"name":"Bea"}"#.utf8), token: bo.token)
        case .erase, .erasePhoto: _ = try? await doomed.request("DELETE", "/api/v1/me", token: bo.token)
        case .hide: _ = try? staff.post("/staff/photos/\(photoId)/hide", ["reason": "Blurred face"])
        case .restore: _ = try? staff.post("/staff/photos/\(photoId)/restore")
        case .staffDelete: _ = try? staff.post("/staff/photos/\(photoId)/delete", ["reason": "Not of the visit", "confirm": "yes"])
        case .close: _ = try? staff.post("/staff/groups/\(groupId)/close", ["reason": "The class has left", "confirm": "yes"])
        case .reopen: _ = try? staff.post("/staff/groups/\(groupId)/reopen")
        case .message: _ = try? staff.post("/staff/venues/science-centre/messages", ["text": "We close in 15 minutes", "group": groupId])
        }
        try await eventually("the doomed server's death") { !doomed.process.isRunning }
        #expect(doomed.process.terminationReason == .uncaughtSignal && doomed.process.terminationStatus == SIGKILL, "the server died before publishing")

        let restarted = try CrashTests.Server(data: data)
        defer { restarted.stop() }
        try await restarted.waitUntilHealthy()
        let replayed = try await StaffCurl.events(port: restarted.port, groupId: groupId, after: before, token: ada.token, until: action.kind)
        #expect(replayed.contains(action.kind), "replayed after \(before): \(replayed)")
        if action == .erasePhoto {
            // Committed with the photo's removal, in the one transaction the crash could not split.
            let all = try await StaffCurl.events(port: restarted.port, groupId: groupId, after: before, token: ada.token, until: "member-left")
            #expect(all.contains("photo-removed") && all.contains("member-left"), "\(all)")
        }
    }

    func addStaff(data: String) throws {
        let result = try ChildProcess.run(
            CommandLineTests.executable, ["staff", "add", Self.email, "--role", "admin", "--data", data], input: Data((Self.password + "\n").utf8)
        )
        #expect(result.status == 0)
    }

    struct Visitor {
        var id: String
        var token: String

        static func make(_ name: String, on server: CrashTests.Server) async throws -> Visitor {
            let created = try await server.json("POST", "/api/v1/players", ["name": name])
            let player = try #require(created["player"] as? [String: Any])
            return Visitor(id: try #require(player["id"] as? String), token: try #require(created["token"] as? String))
        }
    }
}

/// The staff console and an event stream driven by curl, as a browser would: cookies, the
/// form token, and `Last-Event-ID`.
struct StaffCurl {
    let port: Int
    let cookie: String
    let csrf: String

    static func curl(_ arguments: [String]) throws -> (status: Int, headers: String, body: String) {
        let output = try PDFTools.run("curl", ["-s", "-i", "--max-time", "5"] + arguments).output
        let parts = output.components(separatedBy: "\r\n\r\n")
        let headers = parts.first ?? ""
        let status = Int(headers.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, headers, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    static func cookie(_ name: String, in headers: String) -> String? {
        for line in headers.components(separatedBy: "\r\n") where line.lowercased().hasPrefix("set-cookie: \(name)=") {
            return String(line.dropFirst("set-cookie: \(name)=".count).prefix { $0 != ";" })
        }
        return nil
    }

    static func signIn(port: Int) async throws -> StaffCurl {
        let base = "http://127.0.0.1:\(port)"
        let page = try curl(["\(base)/staff/login"])
        let loginCookie = try #require(cookie("groupie_staff_login", in: page.headers))
        let token = try #require(StaffConsoleTests.hiddenToken(in: page.body))
        let form = StaffConsoleTests.form(["csrf": token, "email": PublishCrashTests.email, "password": PublishCrashTests.password])
        let signedIn = try curl(["-b", "groupie_staff_login=\(loginCookie)", "--data", form, "\(base)/staff/login"])
        #expect(signedIn.status == 303)
        let session = try #require(cookie("groupie_staff", in: signedIn.headers))
        let home = try curl(["-b", "groupie_staff=\(session)", "\(base)/staff"])
        return StaffCurl(port: port, cookie: session, csrf: try #require(StaffConsoleTests.hiddenToken(in: home.body)))
    }

    func post(_ path: String, _ fields: [String: String] = [:]) throws -> Int {
        var all = fields
        all["csrf"] = csrf
        return try Self.curl(["-b", "groupie_staff=\(cookie)", "--data", StaffConsoleTests.form(all), "http://127.0.0.1:\(port)\(path)"]).status
    }

    /// The kinds of the events a stream sends after `after`, read until one of kind `until`
    /// arrives (or, as a bound on a hang, two minutes pass).
    static func events(port: Int, groupId: String, after: String, token: String, until kind: String) async throws -> [String] {
        let scratch = try ScratchFolder.make("groupie-stream")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let output = scratch + "/stream"
        let curl = try ChildProcess("/usr/bin/curl", [
            "-s", "-N", "--max-time", "120", "-H", "Authorization: Bearer \(token)", "-H", "Last-Event-ID: \(after)",
            "http://127.0.0.1:\(port)/api/v1/groups/\(groupId)/events",
        ], output: .file(output))
        defer {
            curl.terminate()
            curl.waitUntilExit()
        }
        func kinds() -> [String] {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            return text.components(separatedBy: "\n").filter { $0.hasPrefix("event: ") }.map { String($0.dropFirst("event: ".count)) }
        }
        try? await eventually(.seconds(120), "the event \(kind) on the stream", every: .milliseconds(50)) {
            kinds().contains(kind) || !curl.isRunning
        }
        return kinds()
    }
}
