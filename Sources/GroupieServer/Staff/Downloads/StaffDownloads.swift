import Foundation
import GroupieContent
import GroupieCore
import GroupieStorage
import HTTPTypes
import Hummingbird

/// Photos out, for staff: the photos and collages of a group, of a class (a batch of table
/// cards) or of a day at a venue, as one streamed ZIP with the same privacy as the visitors'
/// own download (`AlbumZip`: no location in any file). Each download is a line of the audit log,
/// written before the first byte goes.
struct StaffDownloadController {
    let moderation: ModerationService
    let downloads: StreamedDownloads
    let fileIO: FileIO

    private var database: any GroupieStore { moderation.database }

    func addRoutes(to signedIn: RouterGroup<StaffContext>) {
        signedIn.get("groups/{groupId}/photos.zip", use: group)
        signedIn.get("venues/{venueId}/photos.zip", use: venue)
    }

    /// The most groups one download takes.
    static let groupLimit = StaffWallController.groupLimit

    func group(_ request: Request, context: StaffContext) async throws -> Response {
        let session = context.session
        guard let group = try await database.group(id: try context.parameters.require("groupId")), session.member.may(.view, at: group.venueId) else {
            throw StaffController.groupNotFound
        }
        guard session.member.may(.moderate, at: group.venueId) else { throw StaffController.notAllowed(session.member.role) }
        let venue = moderation.catalog.venue(id: group.venueId)?.venue
        return try await zip(
            [group], venue: venue, venueId: group.venueId, subject: "group \(StaffPages.name(group))", name: StaffPages.name(group),
            session: session, context: context
        )
    }

    /// `?day=YYYY-MM-DD` (in the venue's time zone; today without it) or `?batch=` (a class's
    /// table cards).
    func venue(_ request: Request, context: StaffContext) async throws -> Response {
        let (session, venue) = try context.venue(in: moderation.catalog)
        let venueId = venue.id
        guard session.member.may(.moderate, at: venueId) else { throw StaffController.notAllowed(session.member.role) }
        let query = request.uri.queryParameters
        if let id = query.get("batch") {
            guard let batch = try await database.groupBatch(id: id, venueId: venueId), !batch.groups.isEmpty else {
                throw Problem.notFound("batch-not-found", "This venue has no such class's table cards.")
            }
            let name = batch.label.map { "\($0) (\(StaffPages.tables(batch)))" } ?? StaffPages.tables(batch)
            return try await zip(batch.groups, venue: venue, venueId: venueId, subject: "class \(name)", name: name, session: session, context: context)
        }
        let day = query.get("day") ?? VenueClock(venue, format: "yyyy-MM-dd").string(moderation.clock())
        guard let range = Self.day(day, timeZone: venue.timeZone) else {
            throw Problem(.unprocessableContent, code: "invalid-day", detail: "Give the day as YYYY-MM-DD, or a class's batch.")
        }
        let groups = try await database.groups(venueId: venueId, createdFrom: range.start, before: range.end, limit: Self.groupLimit)
        return try await zip(groups, venue: venue, venueId: venueId, subject: "day \(day)", name: "\(venueId) \(day)", session: session, context: context)
    }

    /// The day `YYYY-MM-DD` as the venue's clocks count it: its first moment and the next day's.
    static func day(_ text: String, timeZone: String) -> (start: Date, end: Date)? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, text.count == 10 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")!
        let components = DateComponents(year: parts[0], month: parts[1], day: parts[2])
        guard components.isValidDate(in: calendar), let start = calendar.date(from: components),
            let end = calendar.date(byAdding: .day, value: 1, to: start)
        else { return nil }
        return (start, end)
    }

    private func zip(
        _ groups: [Group], venue: Venue?, venueId: String, subject: String, name: String, session: StaffSession, context: StaffContext
    ) async throws -> Response {
        let language = venue?.defaultLanguage ?? "en"
        var albums: [AlbumZip.Album] = []
        var prefixes: Set<String> = []
        var photoCount = 0
        for group in groups {
            let photos = try await AlbumZip.photos(of: group.id, in: database)
            let current = try await moderation.collages.current(groupId: group.id)
            guard !photos.isEmpty || !current.isEmpty else { continue }
            photoCount += photos.count
            var prefix = ZipStream.safeName(StaffPages.name(group))
            if prefixes.contains(prefix) { prefix = ZipStream.safeName(StaffPages.name(group) + " " + group.joinCode.value) }
            prefixes.insert(prefix)
            albums.append(.init(groupId: group.id, prefix: prefix + "/", plan: AlbumPlan(venue: venue, language: language, photos: photos.reversed()), collages: current))
        }
        let place = try downloads.take()
        try await database.audit(AuditEntry(
            at: moderation.clock(), staffEmail: session.member.email, venueId: venueId, action: .photosDownloaded, subject: subject,
            reason: EnglishCount.of(albums.count, "group") + ", " + EnglishCount.of(photoCount, "photo")
        ))
        context.logger.info("staff photos downloaded", metadata: ["staff": "\(session.member.id)", "venue": "\(venueId)", "groups": "\(albums.count)"])
        let timeZone = venue.flatMap { TimeZone(identifier: $0.timeZone) } ?? TimeZone(identifier: "UTC") ?? .current
        let writer = AlbumZip(collages: moderation.collages, files: moderation.files, fileIO: fileIO, logger: context.logger, timeZone: timeZone)
        let chosen = albums
        let body = ResponseBody { stream in
            defer { withExtendedLifetime(place) {} }
            var zip = ZipStream()
            for album in chosen { try await writer.write(album, into: &zip, writer: &stream) }
            try await stream.write(zip.finish())
            try await stream.finish(nil)
        }
        let archive = ZipStream.safeName("Groupie - " + name)
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/zip",
                .contentDisposition: "attachment; filename=\"groupie-photos.zip\"; filename*=UTF-8''\(AlbumController.percentEncoded(archive)).zip",
                .cacheControl: "no-store",
            ],
            body: body
        )
    }
}
