import Foundation
import GroupieContent
import GroupieCore
import GroupieStorage
import HTTPTypes
import Hummingbird
import Logging

/// The staff console at `/staff` for a signed-in member of staff: the venues they look after,
/// their groups playing now, a group's album with moderation, and the audit log. A venue that
/// is not the member's answers 404 as if it did not exist; an action their role does not
/// allow, 403.
struct StaffController {
    let moderation: ModerationService
    let pages: StaffPages

    private var database: any GroupieStore { moderation.database }
    private var catalog: VenueCatalog { moderation.catalog }

    func addRoutes(to signedIn: RouterGroup<StaffContext>) {
        signedIn.get(use: venues)
        signedIn.get("venues/{venueId}", use: venue)
        signedIn.get("groups/{groupId}", use: group)
        signedIn.post("groups/{groupId}/close", use: close)
        signedIn.post("groups/{groupId}/reopen", use: reopen)
        signedIn.get("venues/{venueId}/review", use: review)
        signedIn.get("venues/{venueId}/feed", use: feed)
        signedIn.get("photos/{photoId}/thumb") { try await photoImage($0, context: $1, variant: .thumb) }
        signedIn.get("photos/{photoId}/display") { try await photoImage($0, context: $1, variant: .display) }
        signedIn.post("photos/{photoId}/hide", use: hide)
        signedIn.post("photos/{photoId}/restore", use: restore)
        signedIn.post("photos/{photoId}/delete", use: delete)
        signedIn.get("audit", use: audit)
    }

    // MARK: Pages

    func venues(_ request: Request, context: StaffContext) async throws -> Response {
        let session = context.session
        var entries: [(venue: Venue, playing: Int)] = []
        for entry in catalog.all.sorted(by: { $0.venue.id < $1.venue.id }) where session.member.reaches(venueId: entry.venue.id) {
            entries.append((entry.venue, try await database.activeGroupIds(venueId: entry.venue.id).count))
        }
        return pages.venues(entries, session: session)
    }

    func venue(_ request: Request, context: StaffContext) async throws -> Response {
        let session = context.session
        let venueId = try context.parameters.require("venueId")
        guard session.member.may(.view, at: venueId), let venue = catalog.venue(id: venueId)?.venue else { throw Self.venueNotFound }
        let groups = try await database.playingGroupContents(venueId: venueId, limit: 500).map {
            (group: $0.group, members: $0.members, progress: GroupProgress(venue: venue, doneTasks: $0.taskPhotos.done))
        }
        let latest = try await database.latestPhotos(venueId: venueId, limit: 12)
        let waiting = try await database.heldPhotos(venueId: venueId, limit: 0).total
        return pages.venue(venue, groups: groups, latest: latest, waiting: waiting, session: session)
    }

    /// The photos waiting for review at a venue, oldest first: shared or hidden one by one, by
    /// keyboard or by the forms.
    func review(_ request: Request, context: StaffContext) async throws -> Response {
        let session = context.session
        let venueId = try context.parameters.require("venueId")
        guard session.member.may(.view, at: venueId), let venue = catalog.venue(id: venueId)?.venue else { throw Self.venueNotFound }
        let held = try await database.heldPhotos(venueId: venueId, limit: Self.reviewPageSize)
        return pages.review(venue, photos: held.photos, total: held.total, session: session)
    }

    static let reviewPageSize = 50

    func group(_ request: Request, context: StaffContext) async throws -> Response {
        let session = context.session
        guard let view = try await database.staffView(groupId: try context.parameters.require("groupId")),
            session.member.may(.view, at: view.group.venueId)
        else { throw Self.groupNotFound }
        return pages.group(view, venue: catalog.venue(id: view.group.venueId)?.venue, session: session)
    }

    func audit(_ request: Request, context: StaffContext) async throws -> Response {
        let session = context.session
        let venues = session.member.role == .admin ? nil : session.member.venueIds
        return pages.audit(
            try await database.auditLog(venueIds: venues, staffEmail: session.member.email, limit: 500), venue: { catalog.venue(id: $0)?.venue },
            session: session
        )
    }

    /// A photo's thumbnail, or its display size (for the review queue).
    func photoImage(_ request: Request, context: StaffContext, variant: PhotoVariant) async throws -> Response {
        let session = context.session
        guard let found = try await database.moderatedPhoto(id: try context.parameters.require("photoId")),
            session.member.may(.view, at: found.venueId)
        else { throw Self.photoNotFound }
        let bytes = try await moderation.files.bytes(of: found.photo, variant)
        return Response(
            status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    // MARK: Moderation

    func hide(_ request: Request, context: StaffContext) async throws -> Response {
        let (session, form, found) = try await moderatedPhoto(request, context: context)
        if let audit = try await moderation.hide(found, reason: try form.reason(), by: session.member) { log(audit, session: session, context: context) }
        return Self.back(to: found.photo.groupId, form: form, venueId: found.venueId)
    }

    func restore(_ request: Request, context: StaffContext) async throws -> Response {
        let (session, form, found) = try await moderatedPhoto(request, context: context)
        if let audit = try await moderation.restore(found, by: session.member) { log(audit, session: session, context: context) }
        return Self.back(to: found.photo.groupId, form: form, venueId: found.venueId)
    }

    func delete(_ request: Request, context: StaffContext) async throws -> Response {
        let (session, form, found) = try await moderatedPhoto(request, context: context)
        let reason = try form.reason()
        try form.requireConfirmation()
        let audit = try await moderation.delete(found, reason: reason, by: session.member)
        log(audit, session: session, context: context)
        return Self.back(to: found.photo.groupId, form: form, venueId: found.venueId)
    }

    /// Closing asks for a reason and a ticked confirmation; reopening undoes it.
    func close(_ request: Request, context: StaffContext) async throws -> Response {
        let (session, form, group) = try await moderatedGroup(request, context: context)
        let reason = try form.reason()
        try form.requireConfirmation()
        let audit = try await moderation.close(group, reason: reason, by: session.member)
        log(audit, session: session, context: context)
        return Self.back(to: group.id)
    }

    func reopen(_ request: Request, context: StaffContext) async throws -> Response {
        let (session, _, group) = try await moderatedGroup(request, context: context)
        let audit = try await moderation.reopen(group, by: session.member)
        log(audit, session: session, context: context)
        return Self.back(to: group.id)
    }

    /// The group of the route, its venue checked against the member's and their role against
    /// moderation, the form's token against the session's.
    private func moderatedGroup(_ request: Request, context: StaffContext) async throws -> (StaffSession, StaffForm, Group) {
        let session = context.session
        let form = try await StaffForm(request, context: context)
        try form.requireToken(of: session)
        guard let group = try await database.group(id: try context.parameters.require("groupId")), session.member.may(.view, at: group.venueId) else {
            throw Self.groupNotFound
        }
        guard session.member.may(.moderate, at: group.venueId) else { throw Self.notAllowed(session.member.role) }
        return (session, form, group)
    }

    /// The photo of the route, its venue checked against the member's and their role against
    /// moderation, the form's token against the session's.
    private func moderatedPhoto(_ request: Request, context: StaffContext) async throws
        -> (StaffSession, StaffForm, ModeratedPhoto)
    {
        let session = context.session
        let form = try await StaffForm(request, context: context)
        try form.requireToken(of: session)
        guard let found = try await database.moderatedPhoto(id: try context.parameters.require("photoId")),
            session.member.may(.view, at: found.venueId)
        else { throw Self.photoNotFound }
        guard session.member.may(.moderate, at: found.venueId) else { throw Self.notAllowed(session.member.role) }
        return (session, form, found)
    }

    private func log(_ audit: AuditEntry, session: StaffSession, context: StaffContext) {
        context.logger.info(
            "staff \(audit.action)", metadata: ["staff": "\(session.member.id)", "subject": "\(audit.subject ?? "")", "venue": "\(audit.venueId ?? "")"]
        )
    }

    static func redirect(to url: StaffURL) -> Response {
        Response(status: .seeOther, headers: [.location: url.path])
    }

    static func back(to groupId: String) -> Response {
        redirect(to: .group(groupId))
    }

    /// Back to the group's page, or to the venue's review queue when the form came from there
    /// (`next=review`; nothing else is followed).
    static func back(to groupId: String, form: StaffForm, venueId: String) -> Response {
        guard form["next"] == "review" else { return back(to: groupId) }
        return redirect(to: .review(venueId: venueId))
    }

    static let venueNotFound = Problem.notFound("venue-not-found", "There is no such venue among yours.")
    static let groupNotFound = Problem.notFound("group-not-found", "There is no such group at your venues.")
    static let photoNotFound = Problem.notFound("photo-not-found", "There is no such photo at your venues.")

    static func notAllowed(_ role: StaffRole) -> Problem {
        Problem(.forbidden, code: "staff-role-not-allowed", detail: "A \(role.rawValue) cannot do this; ask a moderator or an admin.")
    }
}
