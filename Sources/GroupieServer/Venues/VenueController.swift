import Crypto
import Foundation
import GroupieContent
import GroupieCore
import Hummingbird

/// `GET /api/v1/venues` and `GET /api/v1/venues/{venueId}`, in the language the client asks for.
struct VenueController {
    let catalog: VenueCatalog

    func addRoutes(to router: some RouterMethods<GroupieRequestContext>) {
        router.get("venues", use: list)
        router.get("venues/{venueId}", use: show)
    }

    func list(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let entries = catalog.all
        let explicit = request.uri.queryParameters["lang"].map(String.init)
        let acceptLanguage = request.headers[.acceptLanguage]
        var summaries: [VenueSummary] = []
        var tag = "list"
        for entry in entries {
            let language = LanguageNegotiation.choose(explicit: explicit, acceptLanguage: acceptLanguage, offered: entry.venue.languages)
            summaries.append(VenueSummary(entry.venue, language: language))
            tag += ":\(entry.contentHash):\(language)"
        }
        return try ConditionalResponse.json(VenueList(venues: summaries), etagSource: tag, request: request, context: context)
    }

    func show(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let venueId = try context.parameters.require("venueId")
        guard let entry = catalog.venue(id: venueId) else {
            throw Problem.notFound("venue-not-found", "There is no venue '\(venueId.prefix(64))'.")
        }
        let language = LanguageNegotiation.choose(
            explicit: request.uri.queryParameters["lang"].map(String.init),
            acceptLanguage: request.headers[.acceptLanguage],
            offered: entry.venue.languages
        )
        let document = VenueDocument(entry.venue, language: language)
        return try ConditionalResponse.json(document, etagSource: "\(entry.contentHash):\(language)", request: request, context: context)
    }
}

/// JSON answers with a strong ETag, and 304 when the client already has them.
enum ConditionalResponse {
    static func json(_ value: some Encodable, etagSource: String, request: Request, context: GroupieRequestContext) throws -> Response {
        let digest = SHA256.hash(data: Data(etagSource.utf8))
        let etag = "\"" + Hex.string(digest.prefix(16)) + "\""
        var headers: HTTPFields = [
            .eTag: etag,
            .cacheControl: "no-cache",
            .vary: "Accept-Language",
        ]
        if let ifNoneMatch = request.headers[.ifNoneMatch], matches(ifNoneMatch, etag: etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json; charset=utf-8"
        let body = try context.responseEncoder.encode(value)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// `If-None-Match` uses the weak comparison: `W/"x"` matches `"x"`.
    static func matches(_ header: String, etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }
}
