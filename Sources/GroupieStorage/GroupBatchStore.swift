import Foundation
import GroupieCore

/// A class's table cards: groups that staff made in advance together, in one transaction, with
/// the batch's id (and the label staff typed, such as "Class 4B") stored on each group's row.
public struct GroupBatch: Sendable, Equatable {
    public var id: String
    /// What staff called the batch when they printed its cards; nil when they typed nothing.
    public var label: String?
    public var createdAt: Date
    /// Its groups, "Table 2" before "Table 10".
    public var groups: [Group]

    public init(id: String, label: String?, createdAt: Date, groups: [Group]) {
        self.id = id
        self.label = label
        self.createdAt = createdAt
        self.groups = groups
    }

    /// The batches of groups read with their batch's id and label, in the order of their first
    /// group; each batch's groups by name.
    public static func gather(_ rows: [(group: Group, batchId: String, label: String?)]) -> [GroupBatch] {
        var batches: [GroupBatch] = [], index: [String: Int] = [:]
        for row in rows {
            if let at = index[row.batchId] {
                batches[at].groups.append(row.group)
            } else {
                index[row.batchId] = batches.count
                batches.append(GroupBatch(id: row.batchId, label: row.label, createdAt: row.group.createdAt, groups: [row.group]))
            }
        }
        for at in batches.indices {
            batches[at].groups.sort { ($0.name ?? "").localizedStandardCompare($1.name ?? "") == .orderedAscending }
        }
        return batches
    }

    /// The longest label kept, in characters.
    public static let labelLimit = 60
}

/// The batches of table cards, for the class wall and the class's downloads.
public protocol GroupBatchStore: Sendable {
    /// Makes groups in advance (no members yet; the first to join becomes the creator) as one
    /// batch, in one transaction: each group's row holds the batch's new id and `label`.
    func createGroupBatch(venueId: String, names: [String], label: String?, joinableFor: TimeInterval, now: Date) async throws -> GroupBatch
    /// The venue's batches made from `start` up to (not including) `end`, oldest first.
    func groupBatches(venueId: String, createdFrom start: Date, before end: Date) async throws -> [GroupBatch]
    /// The venue's batch `id`, nil when the venue has none of that id.
    func groupBatch(id: String, venueId: String) async throws -> GroupBatch?
}
