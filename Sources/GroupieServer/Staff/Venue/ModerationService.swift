import Foundation
import GroupieContent
import GroupieCore
import GroupieStorage

/// What staff do to a venue's photos and groups: each action is one call to the store, which
/// commits the change, its events and its line of the audit log in one transaction; then the
/// events reach the members' streams, the collages the change touches are made again, and a
/// deleted photo's files go unless another photo has them.
struct ModerationService: Sendable {
    let database: any GroupieStore
    let committed: Committed
    let catalog: VenueCatalog
    let files: PhotoFiles
    let collages: CollageService
    let clock: @Sendable () -> Date

    /// A photo as staff found it: its venue, and whether it is hidden or held for review.
    typealias Found = ModeratedPhoto

    /// Nil when the photo was hidden already: nothing changes, and no line is written.
    func hide(_ found: Found, reason: String, by staff: StaffMember) async throws -> AuditEntry? {
        if found.hidden, !found.held { return nil }
        let audit = entry(staff, venueId: found.venueId, action: found.held ? .photoNotShared : .photoHidden, subject: found.photo.id, reason: reason)
        let stored = try await database.hidePhoto(id: found.photo.id, reason: reason, venue: venue(found.venueId), now: audit.at, audit: audit)
        committed.publish(stored)
        if found.held { committed.reviewChanged(groupId: found.photo.groupId) }
        return audit
    }

    /// Nil when the photo was shown already: nothing changes, and no line is written.
    func restore(_ found: Found, by staff: StaffMember) async throws -> AuditEntry? {
        if !found.hidden { return nil }
        let audit = entry(staff, venueId: found.venueId, action: found.held ? .photoShared : .photoRestored, subject: found.photo.id, reason: nil)
        let stored = try await database.restorePhoto(id: found.photo.id, venue: venue(found.venueId), now: audit.at, audit: audit)
        committed.publish(stored)
        if found.held { committed.reviewChanged(groupId: found.photo.groupId) }
        return audit
    }

    func delete(_ found: Found, reason: String, by staff: StaffMember) async throws -> AuditEntry {
        let audit = entry(staff, venueId: found.venueId, action: .photoDeleted, subject: found.photo.id, reason: reason)
        let deleted = try await database.deletePhotoByStaff(id: found.photo.id, venue: venue(found.venueId), now: audit.at, audit: audit)
        if deleted.blobUnused { try await files.removeFiles(of: [deleted.photo.blob]) }
        committed.publish(deleted.events)
        if found.held { committed.reviewChanged(groupId: found.photo.groupId) }
        return audit
    }

    func close(_ group: Group, reason: String, by staff: StaffMember) async throws -> AuditEntry {
        let audit = entry(staff, venueId: group.venueId, action: .groupClosed, subject: group.id, reason: reason)
        let closed = try await database.closeGroup(id: group.id, reason: reason, now: audit.at, audit: audit)
        committed.publish(closed.events)
        return audit
    }

    func reopen(_ group: Group, by staff: StaffMember) async throws -> AuditEntry {
        let audit = entry(staff, venueId: group.venueId, action: .groupReopened, subject: group.id, reason: nil)
        let reopened = try await database.reopenGroup(id: group.id, now: audit.at, audit: audit)
        committed.publish(reopened.events)
        return audit
    }

    private func venue(_ id: String) -> Venue? {
        catalog.venue(id: id)?.venue
    }

    private func entry(_ staff: StaffMember, venueId: String, action: AuditAction, subject: String, reason: String?) -> AuditEntry {
        AuditEntry(at: clock(), staffEmail: staff.email, venueId: venueId, action: action, subject: subject, reason: reason)
    }
}
