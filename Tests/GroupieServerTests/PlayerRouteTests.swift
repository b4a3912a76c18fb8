import Foundation
import GroupieServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Players")
struct PlayerRouteTests {
    @Test("A new player gets a 256-bit base64url token once, and is known by it")
    func create() async throws {
        let server = try TestServer()
        try await server.test { client in
            let (response, body) = try await client.send(.post, "/api/v1/players", json: #"{"name": "  Ada\u0301  ", "lang": "sv"}"#)
            #expect(response.status == .created)
            let token = try #require(body["token"] as? String)
            #expect(token.count == 43)
            #expect(token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            let player = try #require(body["player"] as? [String: Any])
            #expect(player["name"] as? String == "Adá", "trimmed and in NFC")
            #expect(player["language"] as? String == "sv")

            let (me, meBody) = try await client.send(.get, "/api/v1/me", headers: [.authorization: "Bearer \(token)"])
            #expect(me.status == .ok)
            #expect((meBody["player"] as? [String: Any])?["id"] as? String == player["id"] as? String)
            #expect(meBody["group"] == nil || meBody["group"] is NSNull)
        }
    }

    @Test("Without a valid token every other call is 401", arguments: [
        nil, "Bearer", "Basic abc", "Bearer short", "Bearer " + String(repeating: "A", count: 43),
    ])
    func unauthorized(header: String?) async throws {
        let server = try TestServer()
        try await server.test { client in
            var headers: HTTPFields = [:]
            if let header { headers[.authorization] = header }
            let routes: [(HTTPRequest.Method, String)] = [
                (.get, "/api/v1/me"), (.patch, "/api/v1/me"), (.delete, "/api/v1/me"), (.post, "/api/v1/groups"), (.post, "/api/v1/groups/join"),
                (.get, "/api/v1/groups/x"), (.get, "/api/v1/groups/x/photos"), (.post, "/api/v1/groups/x/events/token"),
                (.get, "/api/v1/groups/x/qr.svg"), (.delete, "/api/v1/groups/x/members/y"), (.delete, "/api/v1/photos/x"),
                (.get, "/api/v1/photos/x/thumb"), (.get, "/api/v1/groups/x/events"), (.get, "/api/v1/groups/x/album.zip"),
                (.get, "/api/v1/groups/x/missions/m/collage.jpg"),
            ]
            // What is wrong with the token, as the header shows it.
            let detail = switch header {
            case nil: "needs 'Authorization: Bearer <token>'"
            case .some(let value) where value.count == 50: "not known"
            default: "must be 'Bearer <token>'"
            }
            for (method, uri) in routes {
                let (response, problem) = try await client.send(method, uri, json: "{}", headers: headers)
                #expect(response.status == .unauthorized, "\(method) \(uri)")
                #expect(response.headers[.wwwAuthenticate] == "Bearer")
                #expect(problem["code"] as? String == "unauthorized")
                #expect((problem["detail"] as? String)?.contains(detail) == true, "\(method) \(uri): \(problem["detail"] ?? "")")
            }
            // Routes that need no player do not mind a bad token.
            #expect(try await client.send(.get, "/api/v1/venues", headers: headers).0.status == .ok)
        }
    }

    @Test("Names: 1 to 32 characters as people count them, no control or invisible characters", arguments: [
        (#""Ada""#, true),
        (#"" ""#, false),
        (#""\#(String(repeating: "x", count: 33))""#, false),
        (#""\#(String(repeating: "x", count: 32))""#, true),
        (#""\#(String(repeating: "👩‍👩‍👧", count: 7))""#, true),
        (#""\#(String(repeating: "👩‍👩‍👧", count: 32))""#, false),  // 32 characters, but 576 bytes
        (#""\#(String(repeating: "👍🏽", count: 33))""#, false),
        (#""Ada\u0007""#, false),
        (#""Ada\u202Eevil""#, false),
        (#""Ada\u200Bx""#, false),
        (#""Ada\nLovelace""#, false),
        (#""محمد""#, true),
        (#""李小龍""#, true),
    ])
    func names(json: String, valid: Bool) async throws {
        let server = try TestServer()
        try await server.test { client in
            let (response, body) = try await client.send(.post, "/api/v1/players", json: #"{"name": \#(json)}"#)
            #expect(response.status == (valid ? .created : .unprocessableContent))
            if !valid { #expect(body["code"] as? String == "invalid-name") }
        }
        if !valid { #expect(try await server.database().counts().players == 0) }
    }

    @Test("Bad bodies get a problem document and change nothing", arguments: [
        ("{\"name\": ", 400, "malformed-json"),
        ("", 400, "malformed-json"),
        ("[\"Ada\"]", 422, "invalid-body"),
        ("{}", 422, "invalid-field"),
        ("{\"name\": 42}", 422, "invalid-field"),
        ("{\"name\": null}", 422, "invalid-field"),
        ("{\"name\": \"Ada\", \"admin\": true}", 422, "unknown-field"),
        ("{\"name\": \"Ada\", \"lang\": \"klingon\"}", 422, "invalid-language"),
        ("{\"name\": \"Ada\", \"name\": \"Admin\"}", 422, "duplicate-field"),
        ("{\"name\": \"Ada\", \"n\\u0061me\": \"Admin\"}", 422, "duplicate-field"),
    ])
    func badBodies(body: String, status: Int, code: String) async throws {
        let server = try TestServer()
        try await server.test { client in
            let (response, problem) = try await client.send(.post, "/api/v1/players", json: body)
            #expect(response.status.code == status)
            #expect(response.headers[.contentType] == "application/problem+json")
            #expect(problem["code"] as? String == code)
        }
        #expect(try await server.database().counts().players == 0)
    }

    @Test("A JSON body sent as another media type is refused with 415 and changes nothing; a charset or a +json type is JSON", arguments: [
        ("application/xml", 415),
        ("text/plain", 415),
        ("application/x-www-form-urlencoded", 415),
        ("application/jsonp", 415),
        ("application/json; charset=utf-8", 201),
        ("Application/JSON", 201),
        ("application/merge-patch+json", 201),
    ])
    func mediaTypes(contentType: String, status: Int) async throws {
        let server = try TestServer()
        try await server.test { client in
            let (response, body) = try await client.send(.post, "/api/v1/players", json: #"{"name": "Ada"}"#, headers: [.contentType: contentType])
            #expect(response.status.code == status)
            if status == 415 {
                #expect(body["code"] as? String == "unsupported-media-type")
                #expect((body["detail"] as? String)?.contains(contentType) == true)
            }
        }
        #expect(try await server.database().counts().players == (status == 201 ? 1 : 0))
    }

    @Test("PATCH /me renames and changes or forgets the language")
    func update() async throws {
        let server = try TestServer()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let (renamed, body) = try await client.send(.patch, "/api/v1/me", json: #"{"name": "Grace", "lang": "fr"}"#, headers: ada.auth)
            #expect(renamed.status == .ok)
            #expect((body["player"] as? [String: Any])?["name"] as? String == "Grace")
            #expect((body["player"] as? [String: Any])?["language"] as? String == "fr")
            let (_, cleared) = try await client.send(.patch, "/api/v1/me", json: #"{"lang": null}"#, headers: ada.auth)
            #expect((cleared["player"] as? [String: Any])?["language"] == nil)
            #expect((cleared["player"] as? [String: Any])?["name"] as? String == "Grace")
            let (bad, problem) = try await client.send(.patch, "/api/v1/me", json: #"{"name": ""}"#, headers: ada.auth)
            #expect(bad.status == .unprocessableContent)
            #expect(problem["code"] as? String == "invalid-name")
        }
    }

    @Test("DELETE /me erases the player; the token stops working; their group passes on")
    func erase() async throws {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            let (erased, _) = try await client.send(.delete, "/api/v1/me", headers: ada.auth)
            #expect(erased.status == .noContent)
            #expect(try await client.send(.get, "/api/v1/me", headers: ada.auth).0.status == .unauthorized)
            let (_, seen) = try await client.send(.get, "/api/v1/groups/\(group.id)", headers: bo.auth)
            let members = try #require((seen["group"] as? [String: Any])?["members"] as? [[String: Any]])
            #expect(members.map { $0["name"] as? String } == ["Bo"])
            #expect(members[0]["isCreator"] as? Bool == true)
        }
        #expect(try await server.database().counts() == .init(players: 1, groups: 1, memberships: 1))
    }
}
