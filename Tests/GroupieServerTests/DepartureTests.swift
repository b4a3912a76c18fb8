import Foundation
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GroupieServer

/// A member who goes, however they go, hears of it on their own stream; a creation answers
/// with what it made, whatever the creator sent at the same time.
@Suite("Departures")
struct DepartureTests {
    enum Departure: CaseIterable, Sendable {
        case removedByCreator, leaves, joinsAnother, erased
    }

    @Test("A departing member's own stream gets their member-left, then ends", arguments: Departure.allCases)
    func ownStreamHearsDeparture(_ departure: Departure) async throws {
        let server = try EventTests.server()
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)  // event 1
            let stream = try EventStreamReader(port: port, path: "/api/v1/groups/\(group.id)/events", headers: ["Authorization": "Bearer \(bo.token)"])
            _ = await stream.read(for: 120) { $0.contains("member-joined") }
            let answer: HTTPResponse.Status
            switch departure {
            case .removedByCreator:
                answer = try await client.send(.delete, "/api/v1/groups/\(group.id)/members/\(bo.id)", headers: ada.auth).0.status
            case .leaves:
                answer = try await client.send(.delete, "/api/v1/groups/\(group.id)/members/\(bo.id)", headers: bo.auth).0.status
            case .joinsAnother:
                let cy = try await client.newPlayer("Cy")
                let other = try await client.newGroup(by: cy)
                answer = try await client.join(other.code, as: bo).0.status
            case .erased:
                answer = try await client.send(.delete, "/api/v1/me", headers: bo.auth).0.status
            }
            #expect(answer.code < 300, "\(answer)")
            let text = await stream.read(for: 120) { $0.hasSuffix("0\r\n\r\n") }
            #expect(text.hasSuffix("0\r\n\r\n"), "the stream ends")
            #expect(stream.events.map(\.type) == ["member-joined", "member-left"], "\(text.suffix(300))")
            #expect(stream.events.last?.id == 2)
        }
    }

    @Test("A creation answers 201 with the group it made, even when a join sent with it takes the creator elsewhere")
    func creationRacingJoins() async throws {
        let server = try EventTests.server()
        try await server.test(.live) { client in
            let port = try #require(client.port)
            var codes: [String] = []
            for index in 0..<4 { codes.append(try await client.newGroup(by: try await client.newPlayer("Owner \(index)")).code) }
            for round in 0..<8 {
                let player = try await client.newPlayer("Racer \(round)")
                // Each task answers the creation's status and its group's member names, or nil for a join.
                let answers = try await withThrowingTaskGroup(of: (HTTPResponse.Status, [String?])?.self) { tasks in
                    // Each on a connection of its own, so that they reach the server together.
                    func post(_ path: String, _ json: String) async throws -> (Int, Data) {
                        try await UnreadDownloadTests.send("POST", port: port, path, token: player.token, body: Data(json.utf8), contentType: "application/json")
                    }
                    for code in codes {
                        tasks.addTask { _ = try await post("/api/v1/groups/join", #"{"code": "\#(code)"}"#); return nil }
                    }
                    tasks.addTask {
                        let (status, data) = try await post("/api/v1/groups", #"{"venueId": "aquarium"}"#)
                        let body = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                        let members = (body?["group"] as? [String: Any])?["members"] as? [[String: Any]] ?? []
                        return (HTTPResponse.Status(code: status), members.map { $0["name"] as? String })
                    }
                    var answers: [(HTTPResponse.Status, [String?])?] = []
                    for try await answer in tasks { answers.append(answer) }
                    return answers
                }
                #expect(answers.count == codes.count + 1)
                let created = try #require(answers.compactMap { $0 }.first)
                #expect(created.0 == .created, "round \(round)")
                #expect(created.1 == ["Racer \(round)"], "round \(round): the group as it was made")
            }
        }
    }

    @Test("A new group's answer is what a read of it gives, made from the database by a server that never saw it")
    func creationAnswerMatchesRead() async throws {
        let server = try EventTests.server()
        /// The group document of an answer, its keys sorted, and its members' names.
        @Sendable func group(_ body: [String: Any]) throws -> (json: String, id: String, names: [String?]) {
            let group = try #require(body["group"] as? [String: Any])
            let json = String(decoding: try JSONSerialization.data(withJSONObject: group, options: [.sortedKeys]), as: UTF8.self)
            let members = group["members"] as? [[String: Any]] ?? []
            return (json, try #require(group["id"] as? String), members.map { $0["name"] as? String })
        }
        let (ada, created) = try await server.test(.live) { client in
            let ada = try await client.newPlayer("Ada")
            let (response, body) = try await client.send(.post, "/api/v1/groups", json: #"{"venueId": "aquarium", "name": "Sharks"}"#, headers: ada.auth)
            #expect(response.status == .created)
            return (ada, try group(body))
        }
        #expect(created.names == ["Ada"])
        // A new application on the same data folder: its document cache is empty.
        let read = try await server.test(.live) { client in
            try group(try await client.send(.get, "/api/v1/groups/\(created.id)", headers: ada.auth).1)
        }
        #expect(created.json == read.json)
    }
}
