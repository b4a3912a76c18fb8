/// The tables that `groupie export` and `groupie import` copy between databases, either backend
/// to either: in an order that keeps every foreign key satisfied, with their columns, and which
/// of their rows belong to one venue. The venue numbers are not among them: each backend makes
/// them again from the events as they arrive, in order.
public struct CopiedTable: Sendable {
    /// How a column is read and bound on either side.
    public enum Kind: Sendable {
        case text, integer, real, bytes, boolean
    }

    public let name: String
    /// The order the rows are copied in: every row's foreign keys are copied before it.
    public let order: String
    public let columns: [(name: String, kind: Kind)]
    /// Whether another venue's import may have brought the same rows (players and staff): they
    /// are kept as they are.
    public let shared: Bool
    /// A condition on the table's rows that keeps one venue's, with `:venue` where the venue's
    /// id goes; standard SQL, read the same by SQLite and PostgreSQL.
    public let ofVenue: String

    public var columnList: String { columns.map(\.name).joined(separator: ", ") }

    /// The condition for `venue` with `placeholder` (`?` or `$1`) for the venue's id, or none.
    public func condition(venue: String?, placeholder: String) -> String {
        venue == nil ? "TRUE" : "COALESCE((\(ofVenue.replacingOccurrences(of: ":venue", with: placeholder))), FALSE)"
    }

    /// The values the condition's placeholder takes: the venue's id where it has one.
    public func arguments(venue: String?) -> [String] {
        guard let venue, ofVenue.contains(":venue") else { return [] }
        return [venue]
    }

    public static let all: [CopiedTable] = {
        let ofGroup = "group_id IN (SELECT id FROM play_group WHERE venue_id = :venue)"
        let photo: [(String, Kind)] = [
            ("id", .text), ("group_id", .text), ("photographer_id", .text), ("mission_id", .text), ("task_id", .text), ("blob", .text),
            ("format", .text), ("width", .integer), ("height", .integer), ("created_at", .real), ("focus_x", .real), ("focus_y", .real),
        ]
        return [
            CopiedTable(
                name: "player", order: "created_at, id", columns: [("id", .text), ("name", .text), ("language", .text), ("token_hash", .bytes), ("created_at", .real)],
                shared: true, ofVenue: "id IN (SELECT player_id FROM membership WHERE \(ofGroup))"
            ),
            CopiedTable(
                name: "play_group", order: "created_at, id",
                columns: [
                    ("id", .text), ("venue_id", .text), ("name", .text), ("join_code", .text), ("creator_id", .text), ("created_at", .real),
                    ("joinable_until", .real), ("closed_at", .real), ("closed_reason", .text), ("batch_id", .text), ("batch_label", .text),
                ],
                shared: false, ofVenue: "venue_id = :venue"
            ),
            CopiedTable(
                name: "membership", order: "id", columns: [("group_id", .text), ("player_id", .text), ("joined_at", .real), ("left_at", .real)],
                shared: false, ofVenue: ofGroup
            ),
            CopiedTable(name: "photo", order: "created_at, id", columns: photo, shared: false, ofVenue: ofGroup),
            CopiedTable(
                name: "hidden_photo", order: "created_at, id", columns: photo + [("hidden_at", .real), ("hidden_reason", .text), ("held", .boolean)],
                shared: false, ofVenue: ofGroup
            ),
            CopiedTable(
                name: "task_choice", order: "group_id, mission_id, task_id",
                columns: [("group_id", .text), ("mission_id", .text), ("task_id", .text), ("photo_id", .text)], shared: false, ofVenue: ofGroup
            ),
            CopiedTable(
                name: "task_answer", order: "group_id, answered_at, mission_id, task_id, answer",
                columns: [
                    ("group_id", .text), ("mission_id", .text), ("task_id", .text), ("player_id", .text), ("answer", .text), ("correct", .boolean),
                    ("answered_at", .real),
                ],
                shared: false, ofVenue: ofGroup
            ),
            CopiedTable(
                name: "upload_key", order: "created_at, key",
                columns: [
                    ("player_id", .text), ("group_id", .text), ("key", .text), ("photo_id", .text), ("mission_id", .text), ("task_id", .text),
                    ("created_at", .real),
                ],
                shared: false, ofVenue: ofGroup
            ),
            CopiedTable(
                name: "group_event", order: "group_id, seq",
                columns: [("group_id", .text), ("seq", .integer), ("type", .text), ("data", .text), ("created_at", .real)], shared: false, ofVenue: ofGroup
            ),
            CopiedTable(
                name: "collage", order: "group_id, mission_id",
                columns: [
                    ("group_id", .text), ("mission_id", .text), ("photo_ids", .text), ("key", .text), ("width", .integer), ("height", .integer),
                    ("created_at", .real),
                ],
                shared: false, ofVenue: ofGroup
            ),
            // The venue's staff and the admins, with no other venue; no session.
            CopiedTable(
                name: "staff", order: "email", columns: [("id", .text), ("email", .text), ("password_hash", .text), ("role", .text), ("created_at", .real)],
                shared: true, ofVenue: "(role = 'admin' OR id IN (SELECT staff_id FROM staff_venue WHERE venue_id = :venue))"
            ),
            CopiedTable(name: "staff_venue", order: "staff_id, venue_id", columns: [("staff_id", .text), ("venue_id", .text)], shared: true, ofVenue: "venue_id = :venue"),
            CopiedTable(
                name: "staff_session", order: "created_at",
                columns: [("token_hash", .bytes), ("staff_id", .text), ("csrf_token", .text), ("created_at", .real), ("expires_at", .real)],
                shared: false, ofVenue: "FALSE"
            ),
            CopiedTable(
                name: "staff_audit", order: "id",
                columns: [("at", .real), ("staff_email", .text), ("venue_id", .text), ("action", .text), ("subject", .text), ("reason", .text)],
                shared: false, ofVenue: "venue_id = :venue"
            ),
        ]
    }()
}
