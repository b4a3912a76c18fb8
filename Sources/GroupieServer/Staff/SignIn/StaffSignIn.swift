import Foundation
import GroupieCore
import GroupieStorage
import HTTPTypes
import Hummingbird

/// Signing in to the staff console and out of it: the sign-in form, its password check (slowed
/// down per address and per account), the session cookie, and its end.
struct StaffSignInController {
    let database: any GroupieStore
    let logins: StaffLoginLimits
    let passwords: PasswordChecks
    let clientAddress: ClientAddress
    let plainHTTP: PlainHTTP
    let pages: StaffPages
    let clock: @Sendable () -> Date

    func addRoutes(to staff: RouterGroup<GroupieRequestContext>, signedIn: RouterGroup<StaffContext>) {
        staff.get("login", use: loginPage)
        staff.post("login", use: login)
        signedIn.post("logout", use: logout)
    }

    /// The sign-in form, with a token in a cookie of its own that the form must echo
    /// (a session does not exist yet to hold it).
    func loginPage(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        if context.staffSession != nil { return StaffController.redirect(to: .home) }
        return Self.withLoginToken { pages.login(csrf: $0, message: plainHTTP.isInsecure(request) ? Self.needsHTTPS : nil) }
    }

    /// Over plain HTTP from another computer the browser drops the form's cookie (and would
    /// drop the session's), so signing in cannot work there: said before staff try, and instead
    /// of "the form had expired" when they did.
    static let needsHTTPS = """
        The staff console needs HTTPS: over plain HTTP, browsers keep its sign-in cookie only on the server itself, \
        so signing in from this computer cannot work. Open the console at its https:// address, or ask whoever runs \
        the server to turn HTTPS on.
        """

    func login(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let form = try await StaffForm(request, context: context)
        guard let cookieToken = request.cookies[Self.loginCookie]?.value, form["csrf"].map({ StaffSession.hash($0) }) == StaffSession.hash(cookieToken) else {
            let message = plainHTTP.isInsecure(request) ? Self.needsHTTPS : "The sign-in form had expired; try again."
            return Self.withLoginToken { pages.login(csrf: $0, message: message, status: .forbidden) }
        }
        let email = StaffMember.normalisedEmail(form["email"] ?? "") ?? ""
        let address = clientAddress.of(request, context: context)
        if let wait = await logins.admit(email: email, address: address, now: clock()) {
            context.logger.notice("staff sign-in refused: too many attempts", metadata: ["address": "\(address)"])
            return Self.withLoginToken {
                var response = pages.login(
                    csrf: $0, email: email, message: "Too many attempts. \(Waiting.inWords(seconds: wait))", status: .tooManyRequests
                )
                response.headers[.retryAfter] = String(wait)
                return response
            }
        }
        let password = form["password"] ?? ""
        let credentials = email.isEmpty ? nil : try await database.staffCredentials(email: email)
        // The hash is checked even for an unknown address, so that timing does not tell which exist.
        let hash = credentials?.passwordHash ?? StaffLoginLimits.unknownAccountHash
        guard let matches = try await passwords.verify(password, hash: hash) else {
            context.logger.notice("staff sign-in refused: too many passwords being checked at once", metadata: ["address": "\(address)"])
            return Self.withLoginToken {
                var response = pages.login(csrf: $0, email: email, message: "The server is busy checking other sign-ins. Try again in a few seconds.", status: .serviceUnavailable)
                response.headers[.retryAfter] = "5"
                return response
            }
        }
        guard let member = credentials?.member, matches else {
            context.logger.notice("staff sign-in failed", metadata: ["address": "\(address)"])
            return Self.withLoginToken { pages.login(csrf: $0, email: email, message: "Wrong e-mail address or password.", status: .unauthorized) }
        }
        await logins.signedIn(email: email, address: address)
        let token = StaffSession.newToken()
        try await database.startStaffSession(
            staffId: member.id, tokenHash: StaffSession.hash(token), csrfToken: StaffSession.newToken(), now: clock(), lifetime: StaffSession.lifetime
        )
        try await database.audit(.init(at: clock(), staffEmail: member.email, venueId: nil, action: .signedIn, subject: nil, reason: nil))
        var response = StaffController.redirect(to: .home)
        response.setCookie(StaffSession.cookie(token, maxAge: Int(StaffSession.lifetime)))
        response.setCookie(Cookie(name: Self.loginCookie, value: "", maxAge: 0, path: "/staff", secure: true, httpOnly: true, sameSite: .strict))
        return response
    }

    func logout(_ request: Request, context: StaffContext) async throws -> Response {
        let session = context.session
        try await StaffForm(request, context: context).requireToken(of: session)
        try await database.endStaffSession(tokenHash: session.tokenHash)
        var response = StaffController.redirect(to: .login)
        response.setCookie(StaffSession.cookie("", maxAge: 0))
        return response
    }

    static let loginCookie = "groupie_staff_login"

    static func withLoginToken(_ page: (String) -> Response) -> Response {
        let token = StaffSession.newToken()
        var response = page(token)
        response.setCookie(Cookie(name: loginCookie, value: token, maxAge: 3600, path: "/staff", secure: true, httpOnly: true, sameSite: .strict))
        return response
    }
}
