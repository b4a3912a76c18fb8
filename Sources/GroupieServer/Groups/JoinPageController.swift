import Foundation
import GroupieContent
import GroupieCore
import GroupieImaging
import GroupieStorage
import Hummingbird

/// `GET /` and `GET /j/{code}`: the web client's page. The page a group's QR code opens carries a
/// server-rendered preview of the group (venue, name, code) so that the phone shows what it is
/// joining before the scripts have loaded, and link previews in chat apps read well.
/// `GET /sw.js`: the client's service worker, served at the root so that it looks after every page.
struct JoinPageController {
    let database: any GroupieStore
    let catalog: VenueCatalog
    let clock: @Sendable () -> Date
    let fileIO: FileIO
    /// `assets/web/index.html`; read on every request so that a changed client is served at once.
    let pagePath: String
    /// Unknown codes count against the address as wrong codes of joins do, so that the page
    /// cannot be used to find which codes exist faster than joining could.
    let limiterByAddress: AttemptLimiter
    let clientAddress: ClientAddress
    /// The preview's templates (`join-….mustache`), which escape the group's and the venue's names.
    let templates: PageTemplates

    static let previewMarker = "<!--groupie:preview-->"
    static let titleMarker = "<!--groupie:title-->"
    static let htmlStart = "<html lang=\"en\">"

    func addRoutes(to router: Router<GroupieRequestContext>) {
        router.get("/", use: home)
        router.get("j/{code}", use: page)
        router.get("sw.js", use: serviceWorker)
    }

    func serviceWorker(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let path = (pagePath as NSString).deletingLastPathComponent + "/sw.js"
        guard let script = try await fileIO.run({ FileManager.default.contents(atPath: path) }) else {
            throw Problem(.serviceUnavailable, code: "web-client-missing",
                          detail: "The web client's service worker \(path) is missing; the operator must restore the assets folder.")
        }
        // Checked on every load: a changed client reaches phones at their next visit.
        return Response(
            status: .ok,
            headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(bytes: script))
        )
    }

    func home(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        try await render(status: .ok, title: "Groupie", preview: "", for: request)
    }

    func page(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let typed = try context.parameters.require("code")
        let address = clientAddress.of(request, context: context)
        let now = clock()
        // The page's own words in the phone's language, as the web client will show them.
        var words = JoinPageWords.negotiated(acceptLanguage: request.headers[.acceptLanguage])
        // Counted as an attempt until it ends: unknown codes asked at once cannot all pass the limit.
        let lookup = try await limiterByAddress.attempting(address) { () async throws -> CodeLookup in
            if let seconds = await limiterByAddress.retryAfter(address, now: now) { return .limited(seconds) }
            guard let group = try await JoinCode(typed: typed).asyncFlatMap({ try await database.group(code: $0) }) else {
                await limiterByAddress.recordFailure(address, now: now)
                return .unknown
            }
            return .found(group)
        }
        let group: Group
        switch lookup {
        case .limited(let seconds):
            let view = LimitedView(language: words.language, direction: words.direction, title: words.limitedTitle, text: words.limited((seconds + 59) / 60))
            var response = try await render(
                status: .tooManyRequests, title: words.limitedTitle, preview: templates.render(view, "join-limited"), words: words, for: request
            )
            response.headers[.retryAfter] = "\(seconds)"
            return response
        case .unknown:
            let view = UnknownView(
                language: words.language, direction: words.direction, title: words.unknownTitle, before: words.unknown.before,
                code: String(typed.prefix(16)), after: words.unknown.after
            )
            return try await render(status: .notFound, title: words.unknownTitle, preview: templates.render(view, "join-unknown"), words: words, for: request)
        case .found(let found):
            group = found
        }
        let entry = catalog.venue(id: group.venueId)
        // The page and the venue's name in one language, the one the web client will choose
        // at this venue; the name in each of the venue's languages, for a phone that chose another.
        if let entry { words = JoinPageWords.negotiated(acceptLanguage: request.headers[.acceptLanguage], venueLanguages: entry.venue.languages) }
        let venueName = entry.map { $0.venue.name.resolved(language: words.language, fallback: $0.venue.defaultLanguage) } ?? group.venueId
        // Keyed by the base code (`en` for `en-GB`), as the web client names its languages.
        let venueNames = entry.map { entry in
            Dictionary(entry.venue.languages.map {
                (LanguageCode.base($0), entry.venue.name.resolved(language: $0, fallback: entry.venue.defaultLanguage))
            }, uniquingKeysWith: { a, _ in a })
        } ?? [:]
        let joinable = group.isJoinable(at: now)
        // A full group says so before a name is typed, not after the tap on Join.
        let maximumSize = entry?.venue.rules.maxGroupSize ?? VenueRules.defaultMaxGroupSize
        let members = joinable ? try await database.memberCount(groupId: group.id) : 0
        let full = joinable && !MembershipRules.hasRoom(members: members, maximumSize: maximumSize)
        let status = full ? words.full(maximumSize) : joinable ? words.typeName : words.closed
        let preview = GroupView(
            language: words.language, direction: words.direction, groupLabel: words.group, codeLabel: words.code,
            state: full ? "full" : joinable ? "joinable" : "closed", code: group.joinCode.value, venue: venueName,
            venueLanguages: entry?.venue.languages.joined(separator: " ") ?? "",
            venueNames: String(decoding: try Self.namesEncoder.encode(venueNames), as: UTF8.self),
            name: group.name.flatMap { $0.isEmpty ? nil : $0 } ?? group.joinCode.value, status: status
        )
        return try await render(
            status: .ok, title: words.join(group.joinCode.value), preview: templates.render(preview, "join-group"), words: words, for: request
        )
    }

    private func render(status: HTTPResponse.Status, title: String, preview: String, words: JoinPageWords? = nil, for request: Request) async throws -> Response {
        let path = pagePath
        let template = try await fileIO.run { () -> String? in
            FileManager.default.contents(atPath: path).flatMap { String(data: $0, encoding: .utf8) }
        }
        guard let template else {
            throw Problem(.serviceUnavailable, code: "web-client-missing",
                          detail: "The web client's page \(path) is missing; the operator must restore the assets folder.")
        }
        var page = template
            .replacingOccurrences(of: Self.titleMarker, with: templates.render(TitleView(title: title), "join-title"))
            .replacingOccurrences(of: Self.previewMarker, with: preview)
        if let words {
            // The whole page reads in that direction from its first paint, not once the client runs.
            page = page.replacingOccurrences(of: Self.htmlStart, with: "<html lang=\"\(words.language)\" dir=\"\(words.direction)\">")
        }
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"]
        headers[.vary] = words == nil ? "Accept-Encoding" : "Accept-Language, Accept-Encoding"
        // Gzipped as the client's own files are: the page is the first thing a phone loads.
        if CompressedAssets.acceptsGzip(request.headers[.acceptEncoding]), let gzipped = Gzip.compress(Array(page.utf8)) {
            headers[.contentEncoding] = "gzip"
            return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: gzipped)))
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    struct TitleView: Sendable {
        let title: String
    }

    struct LimitedView: Sendable {
        let language: String
        let direction: String
        let title: String
        let text: String
    }

    struct UnknownView: Sendable {
        let language: String
        let direction: String
        let title: String
        let before: String
        let code: String
        let after: String
    }

    static let namesEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    struct GroupView: Sendable {
        let language: String
        let direction: String
        let groupLabel: String
        let codeLabel: String
        let state: String
        let code: String
        let venue: String
        /// The venue's languages, space-separated, and its name in each (a JSON object): the
        /// web client chooses its language among them and shows the name in it.
        let venueLanguages: String
        let venueNames: String
        let name: String
        let status: String
    }
}

extension Optional {
    func asyncFlatMap<U>(_ transform: (Wrapped) async throws -> U?) async rethrows -> U? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}

/// What the join page found for the code it was asked: a limit reached, no group, or the group.
private enum CodeLookup: Sendable {
    case limited(Int)
    case unknown
    case found(Group)
}
