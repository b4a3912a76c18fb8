import Foundation
@testable import GroupieServer
import Testing

@Suite("Bearer tokens")
struct BearerTokenTests {
    /// Headers near the usual one: other cases, lengths, spaces, control and non-ASCII bytes.
    static func corpus() -> [String] {
        let token = BearerToken.new().token
        var headers = ["Bearer ", "bearer ", "BEARER ", "BeArEr "].map { $0 + token }
        headers += [
            "Bearer  " + token.dropLast(), " Bearer " + token.dropLast(), "Bearer " + token + " ",
            "Bearer " + token.dropLast(), "Bearer " + token + "x", "Bearex " + token, "Basic  " + token,
            "Bearer\t" + token, "Bearer " + token.dropLast() + "\t", "Bearer " + token.dropLast() + "\u{7F}",
            "Bearer " + token.dropLast() + "é", "Bearer " + token.dropLast(2) + "é", "BEARİR " + token,
            "Bearer " + token.prefix(20) + " " + token.dropFirst(21), "", "Bearer", "Bearer ",
        ]
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("Bb eErRaA-_zZ09é\t".unicodeScalars)
        for _ in 0..<2_000 {
            let scheme = String(String.UnicodeScalarView((0..<6).map { _ in alphabet.randomElement(using: &generator)! }))
            let rest = String(String.UnicodeScalarView((0..<43).map { _ in alphabet.randomElement(using: &generator)! }))
            headers.append(scheme + " " + rest)
        }
        return headers
    }

    @Test("The usual header read from its bytes gives what the general reading gives; anything else is left to it")
    func plainReadingAgrees() {
        for header in Self.corpus() {
            if let hash = BearerToken.plainHash(header) {
                #expect(BearerToken.reading(header) == .wellFormed(hash), "\(header.debugDescription)")
            }
        }
        let token = BearerToken.new()
        #expect(BearerToken.plainHash("Bearer " + token.token) == token.hash, "the usual header takes the bytes' reading")
        #expect(BearerToken.plainHash("bEARER " + token.token) == token.hash)
        #expect(BearerToken.plainHash("Bearer " + token.token.dropLast() + "é") == nil)
    }
}
