import Foundation
import GroupieCore

/// Messages from a venue's staff to its groups (`StaffMessage`): each one a `staff-message`
/// event of every group it reaches, committed with its line of the audit log.
public protocol StaffMessageStore: Sendable {
    /// Stores `text` as an event of the group `groupId` of the venue, or, when `groupId` is nil,
    /// of every group of the venue that someone is still in and staff have not closed; writes
    /// `audit` in the same transaction and returns the events. A group not at the venue is
    /// `ModerationError.groupNotFound`, and nothing is stored.
    func sendStaffMessage(_ text: String, venueId: String, groupId: String?, now: Date, audit: AuditEntry?) async throws -> [GroupEvent]
    /// How many messages the venue's stored groups received (one message to every group
    /// counts once per group): for the venue's numbers.
    func staffMessageCount(venueId: String) async throws -> Int
}

/// A venue's groups by when they started, for the staff's downloads of a day or of a class.
public protocol VenueGroupStore: Sendable {
    /// The venue's stored groups made from `start` up to (not including) `end`, oldest first.
    func groups(venueId: String, createdFrom start: Date, before end: Date, limit: Int) async throws -> [Group]
}
