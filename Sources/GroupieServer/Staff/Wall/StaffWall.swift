import Foundation
import GroupieContent
import GroupieCore
import GroupieStorage
import HTTPTypes
import Hummingbird

/// The class's wall (`/staff/venues/{id}/wall`): a page for a projector or a screen by the
/// exit that shows the collages and shared photos of the groups playing, or of one class's
/// groups (a batch of table cards), one at a time and large, with or without the groups'
/// names. It listens to the venue's live feed and shows a new collage as soon as it is made.
struct StaffWallController {
    let moderation: ModerationService
    let pages: StaffPages
    let fileIO: FileIO

    private var database: any GroupieStore { moderation.database }

    func addRoutes(to signedIn: RouterGroup<StaffContext>) {
        signedIn.get("venues/{venueId}/wall", use: page)
        signedIn.get("venues/{venueId}/wall/items", use: items)
        signedIn.get("groups/{groupId}/missions/{missionId}/collage.jpg", use: collage)
    }

    /// What the wall shows: `batch` (a batch of table cards, by its stored id) or every group
    /// playing; `names=0` leaves the groups' names out.
    struct Choice {
        let batch: String?
        let names: Bool

        init(_ request: Request) {
            batch = request.uri.queryParameters.get("batch").flatMap { $0.isEmpty ? nil : $0 }
            names = request.uri.queryParameters.get("names") != "0"
        }
    }

    func page(_ request: Request, context: StaffContext) async throws -> Response {
        let (session, venue) = try context.venue(in: moderation.catalog)
        // The classes of the last day: the batches of the table cards' form.
        let now = moderation.clock()
        let recent = try await database.groupBatches(venueId: venue.id, createdFrom: now.addingTimeInterval(-24 * 3600), before: now.addingTimeInterval(1))
        return pages.wall(venue, batches: recent, choice: Choice(request), session: session)
    }

    /// The wall's pictures, newest first, as JSON for `wall.js`.
    func items(_ request: Request, context: StaffContext) async throws -> Response {
        let (_, venue) = try context.venue(in: moderation.catalog)
        let choice = Choice(request)
        let groups = try await Self.groups(of: choice.batch, venueId: venue.id, in: database)
        var items: [WallItem] = []
        for group in groups {
            let name = choice.names ? StaffPages.name(group) : nil
            for record in try await database.collages(groupId: group.id) {
                items.append(WallItem(
                    id: "collage-\(record.key)", kind: "collage", group: name, caption: Self.missionTitle(record.missionId, venue),
                    src: StaffURL.collage(groupId: group.id, missionId: record.missionId, version: record.key).path,
                    at: Timestamp.string(record.createdAt), sort: record.createdAt
                ))
            }
            for photo in try await database.photos(groupId: group.id, missionId: nil, before: nil, limit: Self.photosPerGroup) {
                items.append(WallItem(
                    id: "photo-\(photo.id)", kind: "photo", group: name, caption: photo.missionId.map { Self.missionTitle($0, venue) },
                    src: StaffURL.photoDisplay(photo.id).path, at: Timestamp.string(photo.createdAt), sort: photo.createdAt
                ))
            }
        }
        items.sort { ($0.sort, $0.id) > ($1.sort, $1.id) }
        let standing = try await Self.standing(of: groups, venue: venue, choice: choice, in: database)
        let body = try JSONEncoder().encode(WallItems(items: Array(items.prefix(Self.itemLimit)), standing: standing))
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "private, no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: body))
        )
    }

    /// A group's collage for staff of its venue, drawn at the wall's size.
    func collage(_ request: Request, context: StaffContext) async throws -> Response {
        let session = context.session
        let groupId = try context.parameters.require("groupId")
        let missionId = try context.parameters.require("missionId")
        guard let group = try await database.group(id: groupId), session.member.may(.view, at: group.venueId) else {
            throw StaffController.groupNotFound
        }
        guard let record = try await database.collages(groupId: groupId).first(where: { $0.missionId == missionId }) else {
            throw Problem.notFound("collage-not-found", "The group has no collage of this mission.")
        }
        let file = try await moderation.collages.file(groupId: groupId, missionId: record.missionId, longEdge: CollageService.defaultLongEdge, format: .jpeg)
        let path = file.path
        let bytes = try await fileIO.run { try Data(contentsOf: URL(fileURLWithPath: path)) }
        return Response(
            status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    static let groupLimit = 500
    static let photosPerGroup = 30
    static let itemLimit = 300

    struct WallItems: Encodable {
        let items: [WallItem]
        /// The class's groups by points, when the venue has points; nil otherwise.
        let standing: [WallStanding]?
    }

    /// A group's place on its class's wall: its name, points and badges, nothing of its members.
    struct WallStanding: Encodable {
        let group: String
        let points: Int
        let badges: [String]
    }

    /// The standing of a class's groups, most points first: only for a venue with points, only on
    /// the wall of one class (a batch of table cards) and only with the groups' names shown, so
    /// that no board ever compares groups across classes.
    static func standing(of groups: [Group], venue: Venue, choice: Choice, in database: any GroupieStore) async throws -> [WallStanding]? {
        guard let rules = venue.points, choice.batch != nil, choice.names else { return nil }
        var standing: [WallStanding] = []
        for group in groups {
            let result = Standing(rules: rules, venue: venue, taskPhotos: try await database.groupContents(group).taskPhotos)
            standing.append(WallStanding(group: StaffPages.name(group), points: result.points, badges: result.badges.map(\.rawValue)))
        }
        return standing.sorted { $0.points != $1.points ? $0.points > $1.points : $0.group.localizedStandardCompare($1.group) == .orderedAscending }
    }

    struct WallItem: Encodable {
        let id: String
        let kind: String
        let group: String?
        let caption: String?
        let src: String
        let at: String
        let sort: Date

        enum CodingKeys: String, CodingKey {
            case id, kind, group, caption, src, at
        }
    }

    /// The groups of the batch `batch`, or every group playing when it is nil.
    static func groups(of batch: String?, venueId: String, in database: any GroupieStore) async throws -> [Group] {
        guard let batch else { return try await database.playingGroups(venueId: venueId, limit: groupLimit) }
        return try await database.groupBatch(id: batch, venueId: venueId)?.groups ?? []
    }

    static func missionTitle(_ id: String, _ venue: Venue) -> String {
        venue.missions.first { $0.id == id }?.title.resolved(language: "en", fallback: venue.defaultLanguage) ?? id
    }
}
