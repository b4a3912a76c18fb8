import Foundation
import GroupieCore
import GroupieStorage
import Hummingbird

/// The feed's filters as its form sends them (`?mission=&group=&from=&to=`) and its page
/// (`before`, the last photo of the page before): what the feed's links carry on.
struct StaffFeedQuery: Sendable, Hashable {
    var mission = ""
    var group = ""
    var from = ""
    var to = ""
    var before = ""

    /// The filled ones, in the form's order.
    var pairs: [(String, String)] {
        [("mission", mission), ("group", group), ("from", from), ("to", to), ("before", before)].filter { !$0.1.isEmpty }
    }

    /// The query of a GET form, read as a form is (`+` is a space there, and `%2B` a plus); a
    /// query that cannot be read is refused.
    init(query: String) throws {
        let fields: StaffFormFields
        do {
            fields = try StaffFormFields.decode(query)
        } catch {
            throw Problem(.badRequest, code: "malformed-query", detail: "The query cannot be read: \(error).")
        }
        func text(_ name: String) -> String { String((fields.text[name] ?? "").trimmingCharacters(in: .whitespaces).prefix(100)) }
        (mission, group, from, to, before) = (text("mission"), text("group"), text("from"), text("to"), text("before"))
    }

    init(mission: String = "", group: String = "", from: String = "", to: String = "", before: String = "") {
        self.mission = mission
        self.group = group
        self.from = from
        self.to = to
        self.before = before
    }
}

extension StaffController {
    static let feedPageSize = 60

    /// The venue's latest photos, newest first, a page at a time, with their groups, tasks and
    /// times, narrowed by mission, group (part of its join code or name) and the venue's days
    /// from and to; groups that have ended are in it until the retention period removes them.
    func feed(_ request: Request, context: StaffContext) async throws -> Response {
        let (session, venue) = try context.venue(in: moderation.catalog)
        let query = try StaffFeedQuery(query: request.uri.query ?? "")
        var filter = PhotoFeedFilter(venueId: venue.id, limit: Self.feedPageSize)
        filter.missionId = query.mission.isEmpty ? nil : query.mission
        filter.group = query.group.isEmpty ? nil : query.group
        filter.before = query.before.isEmpty ? nil : query.before
        for (text, isEnd) in [(query.from, false), (query.to, true)] where !text.isEmpty {
            guard let day = StaffDownloadController.day(text, timeZone: venue.timeZone) else {
                throw Problem(.unprocessableContent, code: "invalid-day", detail: "Give the days as YYYY-MM-DD.")
            }
            if isEnd { filter.to = day.end } else { filter.from = day.start }
        }
        let photos = try await moderation.database.photoFeed(filter)
        return pages.feed(venue, photos: photos, query: query, full: photos.count == Self.feedPageSize, session: session)
    }
}
