import Foundation
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import GroupieServer

@Suite("Collages in the phone's language")
struct CollageLanguageTests {
    /// Status, ETag and bytes of a collage picture.
    static func picture(_ client: some TestClientProtocol, _ uri: String) async throws -> (HTTPResponse.Status, String?, Data) {
        try await client.execute(uri: uri, method: .get) { ($0.status, $0.headers[.eTag], Data(buffer: $0.body)) }
    }

    @Test("?lang= draws the titles in the phone's language, each language its own picture, under the creator's signed link")
    func phoneLanguage() async throws {
        let server = try CollageRouteTests.server()
        try await server.test { client in
            // The aquarium speaks Swedish first, then English; Ada's phone says nothing: Swedish.
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            _ = try await CollageRouteTests.completeReef(client, as: ada, group: group.id)
            let ready = try await ReloadTests.eventually {
                CollageRouteTests.reefCollage(try await CollageRouteTests.document(client, group: group.id, as: ada))?["status"] as? String == "ready"
            }
            #expect(ready != nil)
            let collage = try #require(CollageRouteTests.reefCollage(try await CollageRouteTests.document(client, group: group.id, as: ada)))
            let signed = try #require((collage["urls"] as? [String: String])?["jpg"]) + "&size=512"

            let (creatorStatus, creatorTag, creatorBytes) = try await Self.picture(client, signed)
            let (swedishStatus, swedishTag, _) = try await Self.picture(client, signed + "&lang=sv")
            let (englishStatus, englishTag, englishBytes) = try await Self.picture(client, signed + "&lang=en")
            #expect([creatorStatus, swedishStatus, englishStatus] == [.ok, .ok, .ok])
            #expect(englishBytes.starts(with: [0xFF, 0xD8, 0xFF]))
            // The creator's language is Swedish: the same picture. English is another one.
            #expect(swedishTag == creatorTag)
            #expect(englishTag != creatorTag)
            #expect(englishBytes != creatorBytes)
            // A language the venue lacks falls back as the venue's texts do: English.
            let (japaneseStatus, japaneseTag, _) = try await Self.picture(client, signed + "&lang=ja")
            #expect(japaneseStatus == .ok && japaneseTag == englishTag)
            // Each language's picture is a file of its own, kept for the next phone.
            let files = CollageRouteTests.collageFiles(server, group: group.id).filter { $0.hasPrefix("reef-") && $0.hasSuffix("-512.jpg") }
            #expect(files.count == 2)
            // A 304 for the phone that has its language's picture; the other language's ETag is no match.
            let (notModified, _, _) = try await client.execute(uri: signed + "&lang=en", method: .get, headers: [.ifNoneMatch: try #require(englishTag)]) {
                ($0.status, $0.headers[.eTag], Data(buffer: $0.body))
            }
            #expect(notModified == .notModified)
            let (other, _, _) = try await client.execute(uri: signed + "&lang=sv", method: .get, headers: [.ifNoneMatch: try #require(englishTag)]) {
                ($0.status, $0.headers[.eTag], Data(buffer: $0.body))
            }
            #expect(other == .ok)

            // The creator's phone changes language: the group's link still shows its photos, in every language.
            #expect(try await client.send(.patch, "/api/v1/me", json: #"{"lang": "en"}"#, headers: ada.auth).0.status == .ok)
            #expect(try await Self.picture(client, signed).0 == .ok)
            #expect(try await Self.picture(client, signed + "&lang=sv").0 == .ok)

            // Once the photos change, the old link shows nothing, in any language.
            let image = try TestImages.solid(width: 900, height: 600, rgb: (10, 10, 10), ext: "jpg")
            _ = try await PhotoRouteTests.upload(client, image, as: ada, group: group.id, query: "?mission=reef&task=red&choose=true")
            let gone = try await ReloadTests.eventually { try await Self.picture(client, signed + "&lang=en").0 == .notFound }
            #expect(gone != nil)
        }
    }
}
