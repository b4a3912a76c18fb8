import Foundation

/// Every link, form action and redirect of the staff console, in one place: `path` writes each
/// id as one percent-encoded segment (or query value), so that no id can add a segment, a query
/// or a fragment of its own. Pages put `path` into their templates, which escape it for HTML.
enum StaffURL: Sendable, Hashable {
    case home
    case login
    case logout
    case audit
    case accounts
    case accountRole(String)
    case accountUnlock(String)
    case accountRemove(String)
    case password
    case venue(String)
    case review(venueId: String)
    case numbers(venueId: String)
    /// One of the numbers' CSV files: `table` is `days`, `missions`, `tasks` or `research`.
    case numbersTable(venueId: String, table: String)
    case missions(venueId: String)
    /// A mission's reward drawn from stand-in photos, in `language`; `version` names the file's
    /// version so that a browser may keep the picture until the file changes.
    case reward(venueId: String, missionId: String, language: String, version: String)
    /// The mission file in the browser's editor; `saved` names the version just saved.
    case editor(venueId: String, saved: Int? = nil)
    case editorCheck(venueId: String)
    case editorSave(venueId: String)
    /// A mission's reward drawn from a text checked in the editor, by the text's hash.
    case draftReward(venueId: String, hash: String, missionId: String, language: String)
    case versions(venueId: String)
    /// The differences from version `from` to version `to` of the file.
    case versionsDiff(venueId: String, from: Int, to: Int)
    case versionRestore(venueId: String, number: Int)
    /// An admin's form that starts a new venue's file from the template.
    case newVenue
    /// The pictures uploaded for the venue's file, and where to upload one.
    case pictures(venueId: String)
    /// The pictures' page after an upload, saying which path to write in the file.
    case picturesUploaded(venueId: String, path: String)
    /// The venue's poster: `paper` is `a4` or `a3`, `format` is `pdf` or `png`.
    case poster(venueId: String, paper: String, format: String)
    case cards(venueId: String)
    /// The stickers of the venue's found-it codes, as one PDF.
    case codeStickers(venueId: String)
    case events(venueId: String)
    /// The page that sends a message to the venue's groups, `groupId` chosen first when given.
    case messages(venueId: String, groupId: String? = nil)
    /// The class's wall: every group playing, or the batch of table cards `batch`; `names` false
    /// leaves the groups' names out.
    case wall(venueId: String, batch: String? = nil, names: Bool = true)
    /// A group's photos and collages as one ZIP.
    case groupPhotos(String)
    /// A venue's photos and collages as one ZIP: of a day (`day`, YYYY-MM-DD) or of a class's
    /// table cards (`batch`); the form on the venue's page gives the day.
    case venuePhotos(venueId: String, batch: String? = nil)
    /// The venue's photo feed, with its filters and page.
    case feed(venueId: String, StaffFeedQuery = .init())
    /// The wall's pictures, as JSON.
    case wallItems(venueId: String, batch: String?, names: Bool)
    /// A group's collage of a mission, for staff; `version` (its key) changes with the picture.
    case collage(groupId: String, missionId: String, version: String)
    case group(String)
    /// A photo on its group's page.
    case groupPhoto(groupId: String, photoId: String)
    case groupClose(String)
    case groupReopen(String)
    case photoThumb(String)
    case photoDisplay(String)
    case photoHide(String)
    case photoRestore(String)
    case photoDelete(String)
    /// The web client's own mission screens as a new group at the venue sees them, in `language`.
    case phonePreview(venueId: String, language: String)

    var path: String {
        switch self {
        case .home: "/staff"
        case .login: "/staff/login"
        case .logout: "/staff/logout"
        case .audit: "/staff/audit"
        case .accounts: "/staff/accounts"
        case .accountRole(let id): "/staff/accounts/" + Self.segment(id) + "/role"
        case .accountUnlock(let id): "/staff/accounts/" + Self.segment(id) + "/unlock"
        case .accountRemove(let id): "/staff/accounts/" + Self.segment(id) + "/remove"
        case .password: "/staff/password"
        case .venue(let id): "/staff/venues/" + Self.segment(id)
        case .review(let venueId): Self.venue(venueId).path + "/review"
        case .numbers(let venueId): Self.venue(venueId).path + "/numbers"
        case .numbersTable(let venueId, let table): Self.numbers(venueId: venueId).path + "/" + Self.segment(table + ".csv")
        case .missions(let venueId): Self.venue(venueId).path + "/missions"
        case .reward(let venueId, let missionId, let language, let version):
            Self.missions(venueId: venueId).path + "/" + Self.segment(missionId) + "/reward.jpg"
                + Self.query([("lang", language), ("v", version)])
        case .editor(let venueId, let saved):
            Self.missions(venueId: venueId).path + "/edit" + (saved.map { Self.query([("saved", String($0))]) } ?? "")
        case .editorCheck(let venueId): Self.missions(venueId: venueId).path + "/check"
        case .editorSave(let venueId): Self.missions(venueId: venueId).path + "/save"
        case .draftReward(let venueId, let hash, let missionId, let language):
            Self.missions(venueId: venueId).path + "/draft/" + Self.segment(hash) + "/" + Self.segment(missionId) + "/reward.jpg"
                + Self.query([("lang", language)])
        case .versions(let venueId): Self.missions(venueId: venueId).path + "/versions"
        case .versionsDiff(let venueId, let from, let to):
            Self.versions(venueId: venueId).path + "/diff" + Self.query([("from", String(from)), ("to", String(to))])
        case .versionRestore(let venueId, let number): Self.versions(venueId: venueId).path + "/" + String(number) + "/restore"
        case .newVenue: "/staff/missions/new"
        case .pictures(let venueId): Self.missions(venueId: venueId).path + "/pictures"
        case .picturesUploaded(let venueId, let path): Self.pictures(venueId: venueId).path + Self.query([("uploaded", path)])
        case .poster(let venueId, let paper, let format):
            Self.venue(venueId).path + "/" + Self.segment("poster." + format) + Self.query([("paper", paper)])
        case .cards(let venueId): Self.venue(venueId).path + "/cards"
        case .codeStickers(let venueId): Self.venue(venueId).path + "/code-stickers.pdf"
        case .events(let venueId): Self.venue(venueId).path + "/events"
        case .wall(let venueId, let batch, let names):
            Self.venue(venueId).path + "/wall" + Self.wallQuery(batch: batch, names: names)
        case .wallItems(let venueId, let batch, let names):
            Self.venue(venueId).path + "/wall/items" + Self.wallQuery(batch: batch, names: names)
        case .feed(let venueId, let feed):
            Self.venue(venueId).path + "/feed" + (feed.pairs.isEmpty ? "" : Self.query(feed.pairs))
        case .groupPhotos(let id): Self.group(id).path + "/photos.zip"
        case .venuePhotos(let venueId, let batch): Self.venue(venueId).path + "/photos.zip" + (batch.map { Self.query([("batch", $0)]) } ?? "")
        case .collage(let groupId, let missionId, let version):
            Self.group(groupId).path + "/missions/" + Self.segment(missionId) + "/collage.jpg" + Self.query([("v", version)])
        case .messages(let venueId, let groupId):
            Self.venue(venueId).path + "/messages" + (groupId.map { Self.query([("group", $0)]) } ?? "")
        case .group(let id): "/staff/groups/" + Self.segment(id)
        case .groupPhoto(let groupId, let photoId): Self.group(groupId).path + "#" + Self.segment("photo-" + photoId)
        case .groupClose(let id): Self.group(id).path + "/close"
        case .groupReopen(let id): Self.group(id).path + "/reopen"
        case .photoThumb(let id): Self.photo(id) + "/thumb"
        case .photoDisplay(let id): Self.photo(id) + "/display"
        case .photoHide(let id): Self.photo(id) + "/hide"
        case .photoRestore(let id): Self.photo(id) + "/restore"
        case .photoDelete(let id): Self.photo(id) + "/delete"
        case .phonePreview(let venueId, let language): "/" + Self.query([("preview", venueId), ("lang", language)]) + "#/missions"
        }
    }

    private static func photo(_ id: String) -> String { "/staff/photos/" + segment(id) }

    private static func wallQuery(batch: String?, names: Bool) -> String {
        let pairs = (batch.map { [("batch", $0)] } ?? []) + (names ? [] : [("names", "0")])
        return pairs.isEmpty ? "" : query(pairs)
    }

    /// RFC 3986's unreserved characters; everything else is percent-encoded as UTF-8.
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `text` as one path segment (or query value, or fragment): `/`, `?`, `#`, `&`, `=`, `%`,
    /// spaces and every other character outside the unreserved set are escaped.
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static func query(_ pairs: [(String, String)]) -> String {
        "?" + pairs.map { segment($0.0) + "=" + segment($0.1) }.joined(separator: "&")
    }
}
