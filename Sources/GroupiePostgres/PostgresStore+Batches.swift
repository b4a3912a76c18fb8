import Foundation
import GroupieCore
import GroupieStorage
import PostgresNIO

// A class's table cards: the batch's id and label on each of its groups' rows (migration 8).
extension PostgresStore {
    public func createGroupBatch(venueId: String, names: [String], label: String?, joinableFor: TimeInterval, now: Date) async throws -> GroupBatch {
        let batch = (id: Self.newId(), label: label)
        return try await write { connection in
            var groups: [Group] = []
            for name in names {
                groups.append(try await Self.insertGroup(
                    connection, venueId: venueId, name: name, creatorId: nil, joinableFor: joinableFor, now: now, batch: batch, logger: logger
                ))
            }
            return GroupBatch.gather(groups.map { ($0, batch.id, label) }).first ?? GroupBatch(id: batch.id, label: label, createdAt: now, groups: [])
        }
    }

    public func groupBatches(venueId: String, createdFrom start: Date, before end: Date) async throws -> [GroupBatch] {
        try await once { connection in
            GroupBatch.gather(try await connection.rows("""
                SELECT \(unescaped: Self.groupColumns), batch_id, batch_label FROM play_group
                WHERE venue_id = \(venueId) AND batch_id IS NOT NULL AND created_at >= \(start.timeIntervalSince1970) AND created_at < \(end.timeIntervalSince1970)
                ORDER BY created_at, batch_id, id
                """, logger: logger).map(Self.batchRow))
        }
    }

    public func groupBatch(id: String, venueId: String) async throws -> GroupBatch? {
        try await once { connection in
            GroupBatch.gather(try await connection.rows("""
                SELECT \(unescaped: Self.groupColumns), batch_id, batch_label FROM play_group
                WHERE batch_id = \(id) AND venue_id = \(venueId) ORDER BY created_at, id
                """, logger: logger).map(Self.batchRow)).first
        }
    }

    static func batchRow(_ row: PostgresRandomAccessRow) throws -> (group: Group, batchId: String, label: String?) {
        (try group(from: row), try row.get(9), try row.get(10, as: String?.self))
    }
}
