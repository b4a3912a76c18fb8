import Foundation
@testable import GroupieServer
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// What one address makes, asked for all at once.
@Suite("Creations sent at once")
struct CreationBurstTests {
    @Test("Players and groups asked for at once from one address get no more than the limit made", arguments: [false, true])
    func burst(onPostgres: Bool) async throws {
        var server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium())
        if onPostgres { server.configuration.databaseURL = try await TestPostgres.freshDatabase() }
        server.configuration.creationsPerAddress = 5
        server.configuration.trustForwardedFor = true
        try await server.test { client in
            let players = try await withThrowingTaskGroup(of: (HTTPResponse.Status, String?).self) { tasks in
                for index in 0..<20 {
                    tasks.addTask {
                        let (response, body) = try await client.send(
                            .post, "/api/v1/players", json: "{\"name\": \"P\(index)\"}", headers: [.xForwardedFor: "10.0.0.1"]
                        )
                        return (response.status, body["token"] as? String)
                    }
                }
                return try await tasks.reduce(into: [(HTTPResponse.Status, String?)]()) { $0.append($1) }
            }
            var tokens = players.compactMap { $0.0 == .created ? $0.1 : nil }
            let playersRefused = players.filter { $0.0 == .tooManyRequests }.count
            #expect(tokens.count + playersRefused == 20, "\(players.map(\.0))")
            // A creation refused counts until it has answered, so a burst may make fewer; one
            // after another then makes the rest of the limit, and no more.
            while tokens.count <= 5 {
                let (response, body) = try await client.send(.post, "/api/v1/players", json: #"{"name": "Next"}"#, headers: [.xForwardedFor: "10.0.0.1"])
                guard response.status == .created, let token = body["token"] as? String else { break }
                tokens.append(token)
            }
            #expect(tokens.count == 5)

            // Groups from another address, three asked for by each player at once.
            let groups = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { tasks in
                for token in tokens + tokens + tokens {
                    tasks.addTask {
                        try await client.send(
                            .post, "/api/v1/groups", json: #"{"venueId": "aquarium"}"#, headers: [.authorization: "Bearer \(token)", .xForwardedFor: "10.0.0.2"]
                        ).0.status
                    }
                }
                return try await tasks.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            let madeInBurst = groups.filter { $0 == .created }.count, groupsRefused = groups.filter { $0 == .tooManyRequests }.count
            #expect(madeInBurst + groupsRefused == groups.count, "\(groups)")
            var made = madeInBurst
            while made <= 5, try await client.send(
                .post, "/api/v1/groups", json: #"{"venueId": "aquarium"}"#, headers: [.authorization: "Bearer \(tokens[0])", .xForwardedFor: "10.0.0.2"]
            ).0.status == .created {
                made += 1
            }
            #expect(made == 5)
        }
    }
}
