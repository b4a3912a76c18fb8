import Crypto
import Foundation
import GroupieCore
import GroupieStorage
import HTTPTypes
import Hummingbird

/// A signed-in member of staff: who, and the token their forms must carry.
struct StaffSession: Sendable {
    var member: StaffMember
    var csrfToken: String
    var tokenHash: Data

    /// The session cookie: opaque, only its hash stored, sent to `/staff` only, never to scripts.
    static let cookieName = "groupie_staff"
    /// A session lasts a working day.
    static let lifetime: TimeInterval = 12 * 3600

    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func hash(_ token: String) -> Data {
        Data(SHA256.hash(data: Data(token.utf8)))
    }

    static func cookie(_ value: String, maxAge: Int) -> Cookie {
        Cookie(name: cookieName, value: value, maxAge: maxAge, path: "/staff", secure: true, httpOnly: true, sameSite: .strict)
    }

    /// Whether a form's token is the session's, compared in constant time.
    func accepts(formToken: String?) -> Bool {
        guard let formToken else { return false }
        return Self.hash(formToken) == Self.hash(csrfToken)
    }
}

/// Finds the member of staff behind the session cookie; requests without one go on without.
struct StaffAuthenticator: RouterMiddleware {
    typealias Context = GroupieRequestContext
    let database: any GroupieStore
    let clock: @Sendable () -> Date
    /// Refusals of the console's pages and forms are answered with its pages, not JSON.
    let errorPages: StaffErrorPages

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let token = request.cookies[StaffSession.cookieName]?.value, token.utf8.count <= 64 {
            let hash = StaffSession.hash(token)
            if let found = try await database.staffSession(tokenHash: hash, now: clock()) {
                context.staffSession = StaffSession(member: found.member, csrfToken: found.csrfToken, tokenHash: hash)
            }
        }
        let memory = StaffFormMemory()
        var response: Response
        do {
            response = try await StaffFormMemory.$current.withValue(memory) { try await next(request, context) }
        } catch {
            response = try await answer(error, request: request, context: context, memory: memory)
        }
        // Staff pages hold visitors' names and photos: never cached, never framed.
        response.headers[.cacheControl] = response.headers[.cacheControl] ?? "no-store"
        response.headers[.xFrameOptions] = "DENY"
        response.headers[.contentSecurityPolicy] = "default-src 'self'; img-src 'self'; style-src 'self'; frame-ancestors 'none'; form-action 'self'"
        response.headers[.referrerPolicy] = "same-origin"
        return response
    }
}

/// Without a session: pages send the browser to the sign-in page, forms answer 401.
struct StaffRequired: RouterMiddleware {
    typealias Context = GroupieRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.staffSession == nil else { return try await next(request, context) }
        if request.method == .get || request.method == .head {
            return StaffController.redirect(to: .login)
        }
        throw Self.signInRequired
    }

    static let signInRequired = Problem(.unauthorized, code: "staff-sign-in-required", detail: "Sign in to the staff console first.")
}

/// The context of the signed-in console's routes: the session is there, not optional.
struct StaffContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    private let held: Held<StaffSession>

    var session: StaffSession { held.value }

    /// `StaffRequired` has sent a request without a session to the sign-in page, or refused it.
    init(context: GroupieRequestContext) throws {
        guard let session = context.staffSession else { throw StaffRequired.signInRequired }
        self.coreContext = context.coreContext
        self.held = Held(session)
    }

    var requestDecoder: GroupieRequestDecoder { GroupieRequestDecoder() }
    var responseEncoder: JSONEncoder { GroupieRequestContext.jsonEncoder() }
}

extension RouterMethods<GroupieRequestContext> {
    /// The console's routes for a signed-in member of staff.
    func signedIn() -> RouterGroup<StaffContext> {
        group().add(middleware: StaffRequired()).group(context: StaffContext.self)
    }
}

extension HTTPField.Name {
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}
