import Foundation
import GRDB
import GroupieCore
import GroupieStorage

// A class's table cards: the batch's id and label on each of its groups' rows.
extension SQLiteStore {
    /// Migration v16.
    static let batchSchema = """
        ALTER TABLE play_group ADD COLUMN batch_id TEXT;
        ALTER TABLE play_group ADD COLUMN batch_label TEXT;
        CREATE INDEX play_group_by_batch ON play_group(batch_id) WHERE batch_id IS NOT NULL;
        """

    public func createGroupBatch(venueId: String, names: [String], label: String?, joinableFor: TimeInterval, now: Date) async throws -> GroupBatch {
        let batch = (id: Self.newId(), label: label)
        return try await commits.write { db in
            let groups = try names.map {
                try Self.insertGroup(db, venueId: venueId, name: $0, creatorId: nil, joinableFor: joinableFor, now: now, batch: batch)
            }
            return GroupBatch.gather(groups.map { ($0, batch.id, label) }).first ?? GroupBatch(id: batch.id, label: label, createdAt: now, groups: [])
        }
    }

    public func groupBatches(venueId: String, createdFrom start: Date, before end: Date) async throws -> [GroupBatch] {
        try await batches(where: "venue_id = ? AND batch_id IS NOT NULL AND created_at >= ? AND created_at < ?", [venueId, start.timeIntervalSince1970, end.timeIntervalSince1970])
    }

    public func groupBatch(id: String, venueId: String) async throws -> GroupBatch? {
        try await batches(where: "batch_id = ? AND venue_id = ?", [id, venueId]).first
    }

    private func batches(where condition: String, _ arguments: StatementArguments) async throws -> [GroupBatch] {
        try await writer.read { db in
            GroupBatch.gather(try Row.fetchAll(db, sql: """
                SELECT \(Self.groupColumns), batch_id, batch_label FROM play_group WHERE \(condition) ORDER BY created_at, batch_id, id
                """, arguments: arguments).map { (Self.group(from: $0), $0[9], $0[10]) })
        }
    }
}
