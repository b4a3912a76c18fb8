import Foundation
import GRDB
import GroupieCore
import GroupieStorage

/// Staff accounts, their sessions and the audit log of what they did.
extension SQLiteStore {
    /// Adds a member of staff with a password hash made by the caller.
    public func addStaff(email: String, passwordHash: String, role: StaffRole, venueIds: Set<String>, now: Date, audit: AuditEntry?) async throws -> StaffMember {
        try await commits.write { db in try Self.audited(db, audit) {
            guard try Row.fetchOne(db, sql: "SELECT 1 FROM staff WHERE email = ?", arguments: [email]) == nil else { throw StaffError.emailTaken }
            let member = StaffMember(id: Self.newId(), email: email, role: role, venueIds: venueIds)
            try db.executeCached(
                sql: "INSERT INTO staff (id, email, password_hash, role, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [member.id, email, passwordHash, role.rawValue, now.timeIntervalSince1970]
            )
            for venueId in venueIds.sorted() {
                try db.executeCached(sql: "INSERT INTO staff_venue (staff_id, venue_id) VALUES (?, ?)", arguments: [member.id, venueId])
            }
            return member
        } }
    }

    /// Every member of staff, by e-mail address.
    public func allStaff() async throws -> [StaffMember] {
        try await writer.read { db in
            try String.fetchAll(db, sql: "SELECT id FROM staff ORDER BY email").compactMap { try Self.staffMember(db, id: $0) }
        }
    }

    /// A member of staff and their password hash, to sign in.
    public func staffCredentials(email: String) async throws -> StaffCredentials? {
        try await writer.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT id, password_hash FROM staff WHERE email = ?", arguments: [email]),
                let member = try Self.staffMember(db, id: row["id"])
            else { return nil }
            return StaffCredentials(member: member, passwordHash: row["password_hash"])
        }
    }

    /// Removes a member of staff and ends their sessions; the audit log keeps their address.
    public func removeStaff(email: String, audit: AuditEntry?) async throws {
        try await commits.write { db in try Self.audited(db, audit) {
            try db.executeCached(sql: "DELETE FROM staff WHERE email = ?", arguments: [email])
            guard db.changesCount == 1 else { throw StaffError.unknownStaff }
        } }
    }

    public func setStaffPassword(email: String, passwordHash: String, now: Date, audit: AuditEntry?) async throws {
        try await commits.write { db in try Self.audited(db, audit) {
            guard let id = try String.fetchOne(db, sql: "SELECT id FROM staff WHERE email = ?", arguments: [email]) else {
                throw StaffError.unknownStaff
            }
            try db.executeCached(
                sql: "UPDATE staff SET password_hash = ?, unlocked_at = ? WHERE id = ?", arguments: [passwordHash, now.timeIntervalSince1970, id]
            )
            try db.executeCached(sql: "DELETE FROM staff_session WHERE staff_id = ?", arguments: [id])
        } }
    }

    /// Gives a member of staff a new role and venues; their sessions go on with them.
    public func setStaffRole(email: String, role: StaffRole, venueIds: Set<String>, audit: AuditEntry?) async throws -> StaffMember {
        try await commits.write { db in try Self.audited(db, audit) {
            guard let id = try String.fetchOne(db, sql: "SELECT id FROM staff WHERE email = ?", arguments: [email]) else {
                throw StaffError.unknownStaff
            }
            try db.executeCached(sql: "UPDATE staff SET role = ? WHERE id = ?", arguments: [role.rawValue, id])
            try db.executeCached(sql: "DELETE FROM staff_venue WHERE staff_id = ?", arguments: [id])
            for venueId in venueIds.sorted() {
                try db.executeCached(sql: "INSERT INTO staff_venue (staff_id, venue_id) VALUES (?, ?)", arguments: [id, venueId])
            }
            return StaffMember(id: id, email: email, role: role, venueIds: venueIds)
        } }
    }

    public func unlockStaff(email: String, now: Date, audit: AuditEntry?) async throws {
        try await commits.write { db in try Self.audited(db, audit) {
            try db.executeCached(sql: "UPDATE staff SET unlocked_at = ? WHERE email = ?", arguments: [now.timeIntervalSince1970, email])
            guard db.changesCount > 0 else { throw StaffError.unknownStaff }
        } }
    }

    public func staffUnlockedAt(email: String) async throws -> Date? {
        try await writer.read { db in
            try Double.fetchOne(db, sql: "SELECT unlocked_at FROM staff WHERE email = ?", arguments: [email]).map(Date.init(timeIntervalSince1970:))
        }
    }

    /// Starts a session whose cookie hashes to `tokenHash`.
    public func startStaffSession(staffId: String, tokenHash: Data, csrfToken: String, now: Date, lifetime: TimeInterval) async throws {
        try await commits.write { db in
            try db.executeCached(sql: "DELETE FROM staff_session WHERE expires_at <= ?", arguments: [now.timeIntervalSince1970])
            try db.executeCached(
                sql: "INSERT INTO staff_session (token_hash, staff_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [tokenHash, staffId, csrfToken, now.timeIntervalSince1970, now.timeIntervalSince1970 + lifetime]
            )
        }
    }

    /// The member of staff and the session's CSRF token, while the session lasts.
    public func staffSession(tokenHash: Data, now: Date) async throws -> StaffSessionRecord? {
        try await writer.read { db in
            guard let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT staff_id, csrf_token FROM staff_session WHERE token_hash = ? AND expires_at > ?"),
                arguments: [tokenHash, now.timeIntervalSince1970]
            ), let member = try Self.staffMember(db, id: row["staff_id"]) else { return nil }
            return StaffSessionRecord(member: member, csrfToken: row["csrf_token"])
        }
    }

    public func endStaffSession(tokenHash: Data) async throws {
        try await commits.write { db in
            try db.executeCached(sql: "DELETE FROM staff_session WHERE token_hash = ?", arguments: [tokenHash])
        }
    }

    /// Writes one line of the audit log.
    public func audit(_ entry: AuditEntry) async throws {
        try await commits.write { db in try Self.audited(db, entry) {} }
    }

    /// Runs an action of staff and writes its line of the audit log in the same transaction:
    /// the log holds what was done, and nothing that was not.
    static func audited<T>(_ db: Database, _ entry: AuditEntry?, _ action: () throws -> T) throws -> T {
        let result = try action()
        if let entry {
            try db.executeCached(
                sql: "INSERT INTO staff_audit (at, staff_email, venue_id, action, subject, reason) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [entry.at.timeIntervalSince1970, entry.staffEmail, entry.venueId, entry.action, entry.subject, entry.reason]
            )
        }
        return result
    }

    /// The newest lines of the audit log about `venueIds` and those of `staffEmail` (every
    /// line when `venueIds` is nil), newest first.
    public func auditLog(venueIds: Set<String>?, staffEmail: String, limit: Int) async throws -> [AuditEntry] {
        try await writer.read { db in
            var sql = "SELECT at, staff_email, venue_id, action, subject, reason FROM staff_audit"
            var arguments: StatementArguments = []
            if let venueIds {
                sql += " WHERE staff_email = ? OR venue_id IN (\(databaseQuestionMarks(count: max(1, venueIds.count))))"
                arguments += [staffEmail]
                arguments += StatementArguments(venueIds.isEmpty ? [""] : venueIds.sorted())
            }
            sql += " ORDER BY id DESC LIMIT ?"
            arguments += [limit]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                AuditEntry(
                    at: Date(timeIntervalSince1970: row["at"]), staffEmail: row["staff_email"], venueId: row["venue_id"],
                    action: row["action"], subject: row["subject"], reason: row["reason"]
                )
            }
        }
    }

    static func staffMember(_ db: Database, id: String) throws -> StaffMember? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT id, email, role FROM staff WHERE id = ?"), arguments: [id]),
            let role = StaffRole(rawValue: row["role"])
        else { return nil }
        let venues = try String.fetchAll(db.cachedStatement(sql: "SELECT venue_id FROM staff_venue WHERE staff_id = ?"), arguments: [id])
        return StaffMember(id: row["id"], email: row["email"], role: role, venueIds: Set(venues))
    }
}

// Rate limits: counted in this process's memory, which a restart forgets.
extension SQLiteStore {
    public func failures(of keys: [String], within window: TimeInterval, now: Date) async throws -> [String: [Date]] {
        Dictionary(keys.map { ($0, failureLog.failures(of: $0, within: window, now: now)) }, uniquingKeysWith: { a, _ in a })
    }

    public func recordFailure(of key: String, now: Date, window: TimeInterval) async throws {
        failureLog.record(key, now: now, window: window)
    }

    public func forgetFailures(of key: String) async throws {
        failureLog.forget(key)
    }
}
