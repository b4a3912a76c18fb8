import Foundation
import GroupieContent
import GroupieCore
import GroupieStorage
import Hummingbird

/// `GET /j/{code}`: the page a group's QR code opens in the phone's browser.
struct JoinPageController {
    let database: GroupieDatabase
    let catalog: VenueCatalog
    let clock: @Sendable () -> Date

    func addRoutes(to router: Router<GroupieRequestContext>) {
        router.get("j/{code}", use: page)
    }

    func page(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let typed = try context.parameters.require("code")
        let group = try await JoinCode(typed: typed).asyncFlatMap { try await database.group(code: $0) }
        guard let group else {
            return Self.html(status: .notFound, title: "Unknown group code", body: """
                <h1>Unknown group code</h1>
                <p>No group has the code <strong>\(Self.escape(String(typed.prefix(16))))</strong>. Check the code with the person who made the group.</p>
                """)
        }
        let entry = catalog.venue(id: group.venueId)
        let language = entry.map {
            LanguageNegotiation.choose(explicit: nil, acceptLanguage: request.headers[.acceptLanguage], offered: $0.venue.languages)
        } ?? "en"
        let venueName = entry.map { $0.venue.name.resolved(language: language, fallback: $0.venue.defaultLanguage) } ?? group.venueId
        let status = group.isJoinable(at: clock()) ? "Open this page on your phone to join the group." : "This group can no longer be joined; start a new one."
        return Self.html(status: .ok, title: "Join \(group.joinCode.value)", color: entry?.venue.theme.color, body: """
            <p class="venue">\(Self.escape(venueName))</p>
            <h1>Group \(Self.escape(group.name ?? ""))</h1>
            <p class="code" aria-label="Group code">\(group.joinCode.value)</p>
            <p>\(status)</p>
            """)
    }

    static func html(status: HTTPResponse.Status, title: String, color: String? = nil, body: String) -> Response {
        let page = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)) · Groupie</title>
            <style>
            body{font-family:system-ui,sans-serif;margin:0;padding:2rem 1rem;text-align:center;color:#1b1b1b;background:#fafafa}
            .venue{font-weight:600;color:\(color ?? "#0b6e4f")}
            .code{font-size:2.5rem;letter-spacing:.2em;font-weight:700;font-family:ui-monospace,monospace}
            </style></head>
            <body><main>
            \(body)
            </main></body></html>
            """
        return Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: page))
        )
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

extension Optional {
    func asyncFlatMap<U>(_ transform: (Wrapped) async throws -> U?) async rethrows -> U? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
