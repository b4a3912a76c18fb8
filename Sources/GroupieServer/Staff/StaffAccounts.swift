import Foundation
import Logging
import GroupieCore
import GroupieStorage
import HummingbirdBcrypt

/// Staff accounts as `groupie staff` manages them, on the data folder that `serve` uses.
public struct StaffAccounts: Sendable {
    public enum Failure: Error, CustomStringConvertible, Equatable {
        case invalidEmail(String)
        case emailTaken(String)
        case unknownStaff(String)
        case weakPassword
        case noVenue

        public var description: String {
            switch self {
            case .invalidEmail(let text): "'\(text)' is not an e-mail address."
            case .emailTaken(let email): "\(email) already has an account; use 'groupie staff reset-password' to change its password."
            case .unknownStaff(let email): "No member of staff signs in as \(email)."
            case .weakPassword: "The password must be \(StaffAccounts.passwordLength.lowerBound) to \(StaffAccounts.passwordLength.upperBound) characters long."
            case .noVenue: "Give the venue with --venue ID (or --role admin for every venue)."
            }
        }
    }

    /// How long a password may be: bcrypt reads the first 72 bytes only.
    public static let passwordLength = 10...72
    /// bcrypt's cost: about a tenth of a second per sign-in on a small server.
    static let cost: UInt8 = 11

    let database: any GroupieStore
    let clock: @Sendable () -> Date

    /// Opens the database `serve` would: PostgreSQL at `databaseURL`, else SQLite in the data
    /// folder, creating it like `serve` would.
    public static func open(dataDirectory: String, databaseURL: String?, clock: @escaping @Sendable () -> Date = Date.init) async throws -> StaffAccounts {
        try StartupCheck.prepareDataFolder(dataDirectory)
        let configuration = ServerConfiguration(dataDirectory: dataDirectory, databaseURL: databaseURL)
        var logger = Logger(label: "groupie-staff")
        logger.logLevel = .warning
        return StaffAccounts(database: try await GroupieStores.open(configuration, logger: logger), clock: clock)
    }

    init(database: any GroupieStore, clock: @escaping @Sendable () -> Date) {
        self.database = database
        self.clock = clock
    }

    @discardableResult
    public func add(email text: String, password: String, role: StaffRole, venueIds: Set<String>) async throws(Failure) -> StaffMember {
        guard let email = StaffMember.normalisedEmail(text) else { throw .invalidEmail(text) }
        guard role == .admin || !venueIds.isEmpty else { throw .noVenue }
        let hash = try Self.hash(password)
        do {
            let member = try await database.addStaff(email: email, passwordHash: hash, role: role, venueIds: role == .admin ? [] : venueIds, now: clock())
            try? await database.audit(.init(at: clock(), staffEmail: "command line", venueId: nil, action: "staff added", subject: "\(email) (\(role.rawValue))", reason: nil))
            return member
        } catch {
            throw .emailTaken(email)
        }
    }

    public func list() async throws -> [StaffMember] {
        try await database.allStaff()
    }

    public func remove(email text: String) async throws(Failure) {
        guard let email = StaffMember.normalisedEmail(text) else { throw .invalidEmail(text) }
        do {
            try await database.removeStaff(email: email)
        } catch {
            throw .unknownStaff(email)
        }
        try? await database.audit(.init(at: clock(), staffEmail: "command line", venueId: nil, action: "staff removed", subject: email, reason: nil))
    }

    /// Sets a new password and signs the member out everywhere.
    public func resetPassword(email text: String, password: String) async throws(Failure) {
        guard let email = StaffMember.normalisedEmail(text) else { throw .invalidEmail(text) }
        let hash = try Self.hash(password)
        do {
            try await database.setStaffPassword(email: email, passwordHash: hash)
        } catch {
            throw .unknownStaff(email)
        }
        try? await database.audit(.init(at: clock(), staffEmail: "command line", venueId: nil, action: "password reset", subject: email, reason: nil))
    }

    static func hash(_ password: String) throws(Failure) -> String {
        guard passwordLength.contains(password.count), password.utf8.count <= 72 else { throw .weakPassword }
        return Bcrypt.hash(password, cost: cost)
    }

    /// Checks a password against a stored hash, in constant time for equal lengths (bcrypt's own).
    static func verify(_ password: String, hash: String) -> Bool {
        password.utf8.count <= 256 && Bcrypt.verify(password, hash: hash)
    }
}
