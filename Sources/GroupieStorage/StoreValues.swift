import Foundation
import GroupieCore

/// A stored event of a group: what its members' screens are told, numbered in the group's sequence.
public struct GroupEvent: Sendable, Equatable {
    public var groupId: String
    public var seq: Int
    public var kind: GroupEventKind
    /// A JSON object: the payload's fields, as stored (erasure blanks names in it).
    public var data: String

    public init(groupId: String, seq: Int, kind: GroupEventKind, data: String) {
        self.groupId = groupId
        self.seq = seq
        self.kind = kind
        self.data = data
    }
}

/// 128 random bits, as lowercase hex: the ids of players, groups and photos, which cannot be
/// guessed or enumerated, made the same way by every backend.
public enum StoreIds {
    public static func newId() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let value = generator.next() as UInt64
            let hex = String(value, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}

/// The database cannot be reached just now (a connection lost or refused, no connection to be
/// had): the request may succeed when asked again. Every backend throws this, and only this, for
/// that cause; the server answers it with 503 and Retry-After.
public struct StoreUnavailable: Error, CustomStringConvertible, Equatable {
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { "no connection to the database: \(reason)" }
}

/// A change that kept meeting other changes of the same rows (a deadlock, a group that changed
/// while it was read) and gave up after several tries: the same request may succeed at once.
public struct StoreBusy: Error, CustomStringConvertible, Equatable {
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { "the database is busy with other changes of the same rows: \(reason)" }
}

/// The column lists that both SQL backends read rows by, position by position: their schemas
/// name the same tables and columns.
public enum SQLColumns {
    public static let group = "id, venue_id, name, join_code, creator_id, created_at, joinable_until, closed_at, closed_reason"

    /// A photo with its photographer's name: columns 0 to 12.
    public static let photoSelect = """
        SELECT photo.id, photo.group_id, photo.photographer_id, player.name AS photographer_name, photo.mission_id, photo.task_id,
               photo.blob, photo.format, photo.width, photo.height, photo.created_at, photo.focus_x, photo.focus_y
        FROM photo JOIN player ON player.id = photo.photographer_id
        """

    /// Columns 0 to 12 as `photoSelect`, then the reason and time of hiding, and whether it is
    /// held for review.
    public static let hiddenSelect = """
        SELECT hidden_photo.id, hidden_photo.group_id, hidden_photo.photographer_id, player.name AS photographer_name,
               hidden_photo.mission_id, hidden_photo.task_id, hidden_photo.blob, hidden_photo.format, hidden_photo.width,
               hidden_photo.height, hidden_photo.created_at, hidden_photo.focus_x, hidden_photo.focus_y,
               hidden_photo.hidden_reason, hidden_photo.hidden_at, hidden_photo.held
        FROM hidden_photo JOIN player ON player.id = hidden_photo.photographer_id
        """
}

/// The latest collage made of a group's mission: which photos it shows and the file it is in.
public struct CollageRecord: Sendable, Hashable {
    public var groupId: String
    public var missionId: String
    /// The chosen photos it was made of, in task order; it is current while they still are.
    public var photoIds: [String]
    /// The key of its inputs, which names its files.
    public var key: String
    public var width: Int
    public var height: Int
    public var createdAt: Date

    public init(groupId: String, missionId: String, photoIds: [String], key: String, width: Int, height: Int, createdAt: Date) {
        self.groupId = groupId
        self.missionId = missionId
        self.photoIds = photoIds
        self.key = key
        self.width = width
        self.height = height
        self.createdAt = createdAt
    }
}

/// One stored value, as a backend reads it from a row for another backend to write.
public enum StoredValue: Sendable, Equatable {
    case null
    case text(String)
    case integer(Int64)
    case real(Double)
    case bytes(Data)
}

/// A store whose rows can be copied out, a table at a time, in pages: what `groupie export`
/// and `groupie import` read either backend through.
public protocol RowSource: Sendable {
    /// The ids of the groups stored: `venue`'s, or every group.
    func storedGroupIds(venue: String?) async throws -> [String]
    /// Hands `body` the rows of every table of `CopiedTable.all`, in its order, `venue`'s or all,
    /// up to `page` rows at a time, columns in the table's order.
    func copyRows(venue: String?, page: Int, into body: (CopiedTable, [[StoredValue]]) async throws -> Void) async throws
}

extension VisitNumbers.Tally {
    /// Adds a row of `visit_tally`, as either backend stores it; a kind no version writes is passed over.
    public mutating func add(kind: String, missionId: String, taskId: String, value: Int, count: Int) {
        switch kind {
        case "group": groupsStarted[value, default: 0] += count
        case "completion": missionsCompleted[value, default: 0] += count
        case "photos": photosPerGroup[value, default: 0] += count
        case "mission": missions[missionId, default: [:]][value, default: 0] += count
        case "task": tasks[.init(missionId: missionId, taskId: taskId), default: [:]][value, default: 0] += count
        default: break
        }
    }
}

/// A group playing at a venue as the venue's page lists it: its members and task photos.
public struct PlayingGroup: Sendable {
    public var group: Group
    public var members: [Member]
    public var taskPhotos: TaskPhotos

    public init(group: Group, members: [Member], taskPhotos: TaskPhotos) {
        self.group = group
        self.members = members
        self.taskPhotos = taskPhotos
    }
}

/// A collage recorded: the key of the one it replaced (nil when none, or the same), whose files
/// go, and its `collage-ready`, committed with it.
public struct SavedCollage: Sendable, Equatable {
    public var previousKey: String?
    public var events: [GroupEvent]

    public init(previousKey: String?, events: [GroupEvent]) {
        self.previousKey = previousKey
        self.events = events
    }
}
