import Crypto
import Foundation
import HTTPTypes

/// Bearer tokens: 256 random bits shown once to the device, stored only as their SHA-256.
enum BearerToken {
    static func new() -> (token: String, hash: Data) {
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

    enum Reading: Equatable {
        case missing
        case malformed
        /// The SHA-256 of a token of the right shape, known or not.
        case wellFormed(Data)
    }

    static func read(_ headers: HTTPFields) -> Reading {
        guard let header = headers[.authorization] else { return .missing }
        if let hash = plainHash(header) { return .wellFormed(hash) }
        return reading(header)
    }

    /// Any `Authorization` value: a scheme of "bearer" in any case, one space, then a token of
    /// 43 characters.
    static func reading(_ header: String) -> Reading {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", parts[1].count == 43 else { return .malformed }
        return .wellFormed(hash(String(parts[1])))
    }

    /// The token's hash for the value every device sends, read from its bytes: "Bearer" in any
    /// ASCII case, a space, and 43 printable ASCII characters; nil for anything else, which
    /// `reading` then reads as before, to the same answer. Splitting, lowercasing and counting
    /// the characters of the value cost about 2 % of a group read's CPU.
    static func plainHash(_ header: String) -> Data? {
        let hash = header.utf8.withContiguousStorageIfAvailable { bytes -> Data? in
            guard bytes.count == 50, bytes[6] == UInt8(ascii: " "),
                zip(bytes.prefix(6), "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 }),
                bytes[7...].allSatisfy({ (0x21...0x7E).contains($0) })
            else { return nil }
            return Data(SHA256.hash(data: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[7...]))))
        }
        return hash ?? nil
    }

    static let missing = unauthorized("This request needs 'Authorization: Bearer <token>'; create a player with POST /api/v1/players.")
    static let malformed = unauthorized("The Authorization header must be 'Bearer <token>'.")
    static let unknown = unauthorized("The token is not known; it may belong to a player who was erased.")

    static func unauthorized(_ detail: String) -> Problem {
        Problem(.unauthorized, code: "unauthorized", detail: detail, headers: [.wwwAuthenticate: "Bearer"])
    }
}
