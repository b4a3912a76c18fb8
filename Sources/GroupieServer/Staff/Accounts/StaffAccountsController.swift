import Foundation
import GroupieContent
import GroupieCore
import GroupieStorage
import HTTPTypes
import Hummingbird

/// Staff accounts in the console: an admin adds and removes members of staff, changes their
/// role and venues and lifts a sign-in lock (`/staff/accounts`); everyone changes their own
/// password (`/staff/password`). Each change is written to the audit log under the admin's
/// address, as `groupie staff` writes it under "command line".
struct StaffAccountsController {
    let accounts: StaffAccounts
    let catalog: VenueCatalog
    let passwords: PasswordChecks
    let pages: StaffPages
    let clock: @Sendable () -> Date

    private var database: any GroupieStore { accounts.database }

    func addRoutes(to signedIn: RouterGroup<StaffContext>) {
        signedIn.get("accounts", use: list)
        signedIn.post("accounts", use: add)
        signedIn.post("accounts/{staffId}/role", use: changeRole)
        signedIn.post("accounts/{staffId}/unlock", use: unlock)
        signedIn.post("accounts/{staffId}/remove", use: remove)
        signedIn.get("password", use: passwordPage)
        signedIn.post("password", use: changePassword)
    }

    func list(_ request: Request, context: StaffContext) async throws -> Response {
        let session = try Self.admin(context)
        return pages.accounts(try await database.allStaff(), venues: venueChoices, session: session)
    }

    func add(_ request: Request, context: StaffContext) async throws -> Response {
        let (session, form) = try await adminForm(request, context: context)
        let role = try Self.role(form)
        let hash = try await hash(form["password"] ?? "")
        try await refusing { () throws(StaffAccounts.Failure) in
            try await accounts.add(email: form["email"] ?? "", passwordHash: hash, role: role, venueIds: venueIds(form), by: session.member.email)
        }
        return StaffController.redirect(to: .accounts)
    }

    func changeRole(_ request: Request, context: StaffContext) async throws -> Response {
        let (session, form) = try await adminForm(request, context: context)
        let member = try await self.member(context)
        guard member.id != session.member.id else { throw Self.notYourself }
        let role = try Self.role(form)
        try await refusing { () throws(StaffAccounts.Failure) in
            try await accounts.changeRole(email: member.email, role: role, venueIds: venueIds(form), by: session.member.email)
        }
        return StaffController.redirect(to: .accounts)
    }

    func unlock(_ request: Request, context: StaffContext) async throws -> Response {
        let (session, _) = try await adminForm(request, context: context)
        let member = try await self.member(context)
        try await refusing { () throws(StaffAccounts.Failure) in try await accounts.unlock(email: member.email, by: session.member.email) }
        return StaffController.redirect(to: .accounts)
    }

    func remove(_ request: Request, context: StaffContext) async throws -> Response {
        let (session, form) = try await adminForm(request, context: context)
        let member = try await self.member(context)
        guard member.id != session.member.id else { throw Self.notYourself }
        try form.requireConfirmation()
        try await refusing { () throws(StaffAccounts.Failure) in try await accounts.remove(email: member.email, by: session.member.email) }
        return StaffController.redirect(to: .accounts)
    }

    func passwordPage(_ request: Request, context: StaffContext) async throws -> Response {
        pages.password(session: context.session)
    }

    /// The member's own password: the current one checked, the new one given twice. Their
    /// other sessions end; this browser gets a new one.
    func changePassword(_ request: Request, context: StaffContext) async throws -> Response {
        let session = context.session
        let form = try await StaffForm(request, context: context)
        try form.requireToken(of: session)
        guard let credentials = try await database.staffCredentials(email: session.member.email) else { throw StaffRequired.signInRequired }
        guard let matches = try await passwords.verify(form["currentPassword"] ?? "", hash: credentials.passwordHash) else { throw Self.busy }
        guard matches else {
            throw Problem(.unprocessableContent, code: "wrong-password", detail: "Your current password is not the one you typed.")
        }
        guard form["newPassword"] == form["repeatPassword"] else {
            throw Problem(.unprocessableContent, code: "passwords-differ", detail: "The new password and its repetition differ.")
        }
        let hash = try await hash(form["newPassword"] ?? "")
        try await refusing { () throws(StaffAccounts.Failure) in
            try await accounts.setPassword(email: session.member.email, passwordHash: hash, by: session.member.email)
        }
        let token = StaffSession.newToken()
        try await database.startStaffSession(
            staffId: session.member.id, tokenHash: StaffSession.hash(token), csrfToken: StaffSession.newToken(), now: clock(), lifetime: StaffSession.lifetime
        )
        var response = StaffController.redirect(to: .home)
        response.setCookie(StaffSession.cookie(token, maxAge: Int(StaffSession.lifetime)))
        return response
    }

    // MARK: Parts

    var venueChoices: [(id: String, name: String)] {
        catalog.all.map { ($0.venue.id, StaffPages.name($0.venue)) }.sorted { $0.id < $1.id }
    }

    /// The venues ticked (`venue[]=<id>`, once for each), of those the catalog has.
    func venueIds(_ form: StaffForm) -> Set<String> {
        Set(form.values("venue")).intersection(venueChoices.map(\.id))
    }

    static func role(_ form: StaffForm) throws -> StaffRole {
        guard let role = form["role"].flatMap(StaffRole.init(rawValue:)) else {
            throw Problem(.unprocessableContent, code: "invalid-role", detail: "Choose a role: viewer, moderator, editor or admin.")
        }
        return role
    }

    private func hash(_ password: String) async throws -> String {
        let hashed: String?
        do {
            hashed = try await passwords.hash(password)
        } catch let failure as StaffAccounts.Failure {
            throw Self.problem(failure)
        }
        guard let hashed else { throw Self.busy }
        return hashed
    }

    private func member(_ context: StaffContext) async throws -> StaffMember {
        let id = try context.parameters.require("staffId")
        guard let member = try await database.allStaff().first(where: { $0.id == id }) else { throw Self.staffNotFound }
        return member
    }

    private func adminForm(_ request: Request, context: StaffContext) async throws -> (StaffSession, StaffForm) {
        let session = try Self.admin(context)
        let form = try await StaffForm(request, context: context)
        try form.requireToken(of: session)
        return (session, form)
    }

    static func admin(_ context: StaffContext) throws -> StaffSession {
        guard context.session.member.role == .admin else {
            throw Problem(.forbidden, code: "staff-role-not-allowed", detail: "Only an admin manages the accounts of staff.")
        }
        return context.session
    }

    private func refusing(_ body: () async throws(StaffAccounts.Failure) -> some Sendable) async throws {
        do throws(StaffAccounts.Failure) {
            _ = try await body()
        } catch {
            throw Self.problem(error)
        }
    }

    static func problem(_ failure: StaffAccounts.Failure) -> Problem {
        let detail = failure.description.replacingOccurrences(of: "--venue ID", with: "a venue").replacingOccurrences(of: " (or --role admin for every venue)", with: " (an admin has every venue)")
            .replacingOccurrences(of: "; leave out --venue", with: "; tick no venue")
            .replacingOccurrences(of: "; use 'groupie staff reset-password' to change its password", with: "")
        switch failure {
        case .unknownStaff: return staffNotFound
        case .emailTaken: return Problem(.conflict, code: "email-taken", detail: detail)
        default: return Problem(.unprocessableContent, code: "invalid-account", detail: detail)
        }
    }

    static let staffNotFound = Problem.notFound("staff-not-found", "There is no such member of staff.")
    static let notYourself = Problem(
        .unprocessableContent, code: "not-yourself", detail: "You cannot change your own role or remove your own account; ask another admin."
    )
    static let busy = Problem(
        .serviceUnavailable, code: "busy", detail: "The server is busy checking passwords. Try again in a few seconds.", headers: [.retryAfter: "5"]
    )
}

extension StaffPages {
    struct AccountsView: Sendable {
        struct Choice: Sendable {
            let value: String
            let label: String
            let selected: Bool
        }
        struct Account: Sendable {
            let email: String
            let role: String
            let venues: String
            /// Forms for others' accounts: an admin does not demote or remove themself here.
            let forms: Forms?
        }
        struct Forms: Sendable {
            let role: String
            let unlock: String
            let remove: String
            let roles: [Choice]
            let venueChoices: [Choice]
        }
        let accounts: [Account]
        let add: String
        let roles: [Choice]
        let venueChoices: [Choice]
        let passwordLength: String
    }

    func accounts(_ members: [StaffMember], venues: [(id: String, name: String)], session: StaffSession) -> Response {
        func roles(_ chosen: StaffRole?) -> [AccountsView.Choice] {
            StaffRole.allCases.map { .init(value: $0.rawValue, label: Self.roleLabel($0), selected: $0 == chosen) }
        }
        func venueChoices(_ chosen: Set<String>) -> [AccountsView.Choice] {
            venues.map { .init(value: $0.id, label: $0.name, selected: chosen.contains($0.id)) }
        }
        let names = Dictionary(venues.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let view = AccountsView(
            accounts: members.map { member in
                .init(
                    email: member.email, role: Self.roleLabel(member.role),
                    venues: member.role == .admin ? "Every venue" : member.venueIds.sorted().map { names[$0] ?? $0 }.joined(separator: ", "),
                    forms: member.id == session.member.id ? nil : .init(
                        role: StaffURL.accountRole(member.id).path, unlock: StaffURL.accountUnlock(member.id).path,
                        remove: StaffURL.accountRemove(member.id).path, roles: roles(member.role), venueChoices: venueChoices(member.venueIds)
                    )
                )
            },
            add: StaffURL.accounts.path, roles: roles(.viewer), venueChoices: venueChoices([]),
            passwordLength: "\(StaffAccounts.passwordLength.lowerBound) to \(StaffAccounts.passwordLength.upperBound) characters"
        )
        return page("staff-accounts", title: "Staff accounts", session: session, view)
    }

    struct PasswordView: Sendable {
        let action: String
        let email: String
        let passwordLength: String
    }

    func password(session: StaffSession) -> Response {
        page(
            "staff-password", title: "Your password", session: session,
            PasswordView(
                action: StaffURL.password.path, email: session.member.email,
                passwordLength: "\(StaffAccounts.passwordLength.lowerBound) to \(StaffAccounts.passwordLength.upperBound) characters"
            )
        )
    }

    static func roleLabel(_ role: StaffRole) -> String {
        switch role {
        case .viewer: "Viewer: sees groups, albums and numbers"
        case .moderator: "Moderator: also hides and deletes photos, closes groups"
        case .editor: "Editor: also edits missions and posters"
        case .admin: "Admin: everything, at every venue, and staff accounts"
        }
    }
}
