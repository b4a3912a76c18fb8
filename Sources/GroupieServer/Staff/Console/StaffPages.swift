import Foundation
import GroupieCore
import GroupieStorage
import Hummingbird

/// The staff console's pages: plain HTML forms that work on an office PC and a tablet alike.
/// Each page is a template in `Resources/templates/` (`staff-….mustache`, inside the layout
/// `page.mustache`) filled from a small view of plain values built here, so that every text a
/// visitor, a member of staff or a mission file gave is escaped by the template, and every link
/// is a `StaffURL`.
struct StaffPages: Sendable {
    let templates: PageTemplates

    /// A whole page: `view` inside the layout, with the signed-in bar and its sign-out form when
    /// there is a session.
    func page(_ template: String, title: String, session: StaffSession?, status: HTTPResponse.Status = .ok, _ view: some Sendable) -> Response {
        templates.response(StaffPage(title: title, bar: session.map(StaffBar.init), view: view), template, status: status)
    }

    struct LoginView: Sendable {
        let action = StaffURL.login.path
        let csrf: String
        let email: String
        let alert: String?
    }

    func login(csrf: String, email: String = "", message: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        page("staff-login", title: "Sign in", session: nil, status: status, LoginView(csrf: csrf, email: email, alert: message))
    }

    struct VenuesView: Sendable {
        struct Entry: Sendable {
            let url: String
            let name: String
            let playing: String
        }
        let venues: [Entry]
        /// For an admin: where a new venue is started from the template.
        let newVenue: String?
    }

    func venues(_ entries: [(venue: Venue, playing: Int)], session: StaffSession) -> Response {
        let venues = entries.map { entry in
            VenuesView.Entry(
                url: StaffURL.venue(entry.venue.id).path, name: Self.name(entry.venue),
                playing: "\(entry.playing) group\(entry.playing == 1 ? "" : "s") playing"
            )
        }
        return page("staff-venues", title: "Your venues", session: session, VenuesView(
            venues: venues, newVenue: session.member.role == .admin ? StaffURL.newVenue.path : nil
        ))
    }

    struct VenueView: Sendable {
        struct Review: Sendable {
            let url: String
            let waiting: String
        }
        struct Row: Sendable {
            let url: String
            let name: String
            let closed: Bool
            let members: String
            let progress: String
            let started: String
        }
        struct Latest: Sendable {
            let url: String
            let thumb: String
            let photographer: String
        }
        let review: Review?
        let numbers: String
        /// For those who may edit the mission file.
        let missions: String?
        let posterA4PDF: String
        let posterA3PDF: String
        let posterA4PNG: String
        /// The stickers of the venue's found-it codes, when it has code tasks.
        let codeStickers: String?
        /// The table cards' form, for those who may moderate.
        let cards: String?
        let maximumCards = StaffPosterController.maximumCards
        /// The languages a batch of table cards may speak: the venue's.
        let cardLanguages: [Language]
        let groups: [Row]
        let latest: [Latest]
        let feed: String
        let events: String
        /// Messages to the groups, the wall, the photos out.
        let messages: String
        let wall: String
        /// The form that downloads a day's photos, for those who may moderate, and today's date
        /// at the venue.
        let photos: String?
        let today: String
        let timeNote: String
    }

    func venue(
        _ venue: Venue, groups: [(group: Group, members: [Member], progress: GroupProgress)], latest: [Photo], waiting: Int,
        session: StaffSession
    ) -> Response {
        let time = StaffTime(venue: venue)
        let rows = groups.map { entry in
            let done = entry.progress.missions.filter(\.isComplete).count
            let tasks = entry.progress.missions.flatMap(\.tasks)
            return VenueView.Row(
                url: StaffURL.group(entry.group.id).path, name: Self.name(entry.group), closed: entry.group.closed != nil,
                members: entry.members.map(\.name).joined(separator: ", "),
                progress: "\(tasks.filter(\.isDone).count) of \(tasks.count) tasks, \(done) of \(entry.progress.missions.count) missions",
                started: time.string(entry.group.createdAt)
            )
        }
        let view = VenueView(
            review: venue.review == .beforeSharing || waiting > 0
                ? .init(url: StaffURL.review(venueId: venue.id).path, waiting: Self.waitingForReview(waiting)) : nil,
            numbers: StaffURL.numbers(venueId: venue.id).path,
            missions: session.member.may(.editMissions, at: venue.id) ? StaffURL.missions(venueId: venue.id).path : nil,
            posterA4PDF: StaffURL.poster(venueId: venue.id, paper: "a4", format: "pdf").path,
            posterA3PDF: StaffURL.poster(venueId: venue.id, paper: "a3", format: "pdf").path,
            posterA4PNG: StaffURL.poster(venueId: venue.id, paper: "a4", format: "png").path,
            codeStickers: StaffCodeStickers.codes(of: venue).isEmpty ? nil : StaffURL.codeStickers(venueId: venue.id).path,
            cards: session.member.may(.moderate, at: venue.id) ? StaffURL.cards(venueId: venue.id).path : nil,
            cardLanguages: venue.languages.map { .init(code: $0, name: Self.languageName($0)) },
            groups: rows,
            latest: latest.map { photo in
                .init(
                    url: StaffURL.groupPhoto(groupId: photo.groupId, photoId: photo.id).path, thumb: StaffURL.photoThumb(photo.id).path,
                    photographer: photo.photographerName
                )
            },
            feed: StaffURL.feed(venueId: venue.id).path,
            events: StaffURL.events(venueId: venue.id).path,
            messages: StaffURL.messages(venueId: venue.id).path,
            wall: StaffURL.wall(venueId: venue.id).path,
            photos: session.member.may(.moderate, at: venue.id) ? StaffURL.venuePhotos(venueId: venue.id).path : nil,
            today: VenueClock(venue, format: "yyyy-MM-dd").string(Date()),
            timeNote: StaffTime.note(venue)
        )
        return page("staff-venue", title: Self.name(venue), session: session, view)
    }

    struct AuditView: Sendable {
        struct Entry: Sendable {
            let at: String
            let email: String
            let venue: String
            let action: String
            let subject: String
            let reason: String
        }
        let entries: [Entry]
    }

    /// Each line's time in its venue's time zone (UTC, said, for lines of no venue).
    func audit(_ entries: [AuditEntry], venue: (String) -> Venue?, session: StaffSession) -> Response {
        let entries = entries.map { entry in
            AuditView.Entry(
                at: StaffTime(venue: entry.venueId.flatMap(venue)).string(entry.at), email: entry.staffEmail, venue: entry.venueId ?? "", action: entry.action,
                subject: entry.subject ?? "", reason: entry.reason ?? ""
            )
        }
        return page("staff-audit", title: "Audit log", session: session, AuditView(entries: entries))
    }

    /// "No photo waits for review.", "1 photo waits for review.", "3 photos wait for review."
    /// (review.js says the same as it counts down).
    static func waitingForReview(_ count: Int) -> String {
        switch count {
        case 0: "No photo waits for review."
        case 1: "1 photo waits for review."
        default: "\(count) photos wait for review."
        }
    }

    struct Language: Sendable {
        let code: String
        let name: String
    }

    /// "Swedish (sv)": a language's English name, for staff choosing one.
    static func languageName(_ code: String) -> String {
        (Locale(identifier: "en").localizedString(forIdentifier: code) ?? code) + " (\(code))"
    }

    static func name(_ venue: Venue) -> String {
        venue.name.resolved(language: "en", fallback: venue.defaultLanguage)
    }

    static func name(_ group: Group) -> String {
        group.name ?? "Group \(group.joinCode.value)"
    }
}

/// What the layout `page.mustache` fills: the title, the signed-in bar, and the page's own view.
struct StaffPage<View: Sendable>: Sendable {
    let title: String
    let bar: StaffBar?
    let view: View
}

/// The signed-in bar: who, in what role, and the form token every form of the page carries
/// (`csrf.mustache`).
struct StaffBar: Sendable {
    let home = StaffURL.home.path
    let audit = StaffURL.audit.path
    let logout = StaffURL.logout.path
    let password = StaffURL.password.path
    /// The staff accounts, for an admin.
    let accounts: String?
    let email: String
    let role: String
    let csrf: String

    init(_ session: StaffSession) {
        email = session.member.email
        role = session.member.role.rawValue
        csrf = session.csrfToken
        accounts = session.member.role == .admin ? StaffURL.accounts.path : nil
    }
}
