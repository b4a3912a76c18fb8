import Crypto
import Foundation
import GroupieCore
import GroupieStorage
import Hummingbird

/// Bearer tokens: 256 random bits shown once to the device, stored only as their SHA-256.
struct Authenticator: Sendable {
    let database: GroupieDatabase

    static func newToken() -> (token: String, hash: Data) {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: 32)
        for index in bytes.indices { bytes[index] = generator.next() }
        let token = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return (token, hash(token))
    }

    static func hash(_ token: String) -> Data {
        Data(SHA256.hash(data: Data(token.utf8)))
    }

    /// The player behind the request's bearer token, or 401.
    func player(_ request: Request) async throws -> Player {
        guard let player = try await database.player(tokenHash: try tokenHash(request)) else {
            throw Self.unknownToken
        }
        return player
    }

    /// The SHA-256 of the request's bearer token, or 401 when there is none of the right shape.
    func tokenHash(_ request: Request) throws -> Data {
        guard let header = request.headers[.authorization] else {
            throw Self.unauthorized("This request needs 'Authorization: Bearer <token>'; create a player with POST /api/v1/players.")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", parts[1].count == 43 else {
            throw Self.unauthorized("The Authorization header must be 'Bearer <token>'.")
        }
        return Self.hash(String(parts[1]))
    }

    static let unknownToken = unauthorized("The token is not known; it may belong to a player who was erased.")

    static func unauthorized(_ detail: String) -> Problem {
        Problem(.unauthorized, code: "unauthorized", detail: detail, headers: [.wwwAuthenticate: "Bearer"])
    }
}
