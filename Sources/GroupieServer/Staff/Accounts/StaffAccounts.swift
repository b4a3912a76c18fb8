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
        case venueForAdmin

        public var description: String {
            switch self {
            case .invalidEmail(let text): "'\(text)' is not an e-mail address."
            case .emailTaken(let email): "\(email) already has an account; use 'groupie staff reset-password' to change its password."
            case .unknownStaff(let email): "No member of staff signs in as \(email)."
            case .weakPassword: "The password must be \(StaffAccounts.passwordLength.lowerBound) to \(StaffAccounts.passwordLength.upperBound) characters long."
            case .noVenue: "Give the venue with --venue ID (or --role admin for every venue)."
            case .venueForAdmin: "An admin looks after every venue; leave out --venue."
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
        var configuration = ServerConfiguration()
        configuration.dataDirectory = dataDirectory
        configuration.databaseURL = databaseURL
        var logger = Logger(label: "groupie-staff")
        logger.logLevel = .warning
        return StaffAccounts(database: try await ConfiguredStore.open(configuration, logger: logger, ready: false), clock: clock)
    }

    init(database: any GroupieStore, clock: @escaping @Sendable () -> Date) {
        self.database = database
        self.clock = clock
    }

    @discardableResult
    public func add(email text: String, password: String, role: StaffRole, venueIds: Set<String>, by: String = "command line") async throws(Failure) -> StaffMember {
        try await add(email: text, passwordHash: try Self.hash(password), role: role, venueIds: venueIds, by: by)
    }

    /// The same with the password hashed already (the console hashes it off the event loop).
    @discardableResult
    func add(email text: String, passwordHash hash: String, role: StaffRole, venueIds: Set<String>, by: String) async throws(Failure) -> StaffMember {
        guard let email = StaffMember.normalisedEmail(text) else { throw .invalidEmail(text) }
        try Self.requireVenues(venueIds, for: role)
        do {
            return try await database.addStaff(
                email: email, passwordHash: hash, role: role, venueIds: venueIds, now: clock(),
                audit: entry(by, .staffAdded, "\(email) (\(role.rawValue))")
            )
        } catch {
            throw .emailTaken(email)
        }
    }

    public func list() async throws -> [StaffMember] {
        try await database.allStaff()
    }

    public func remove(email text: String, by: String = "command line") async throws(Failure) {
        guard let email = StaffMember.normalisedEmail(text) else { throw .invalidEmail(text) }
        do {
            try await database.removeStaff(email: email, audit: entry(by, .staffRemoved, email))
        } catch {
            throw .unknownStaff(email)
        }
    }

    /// Sets a new password and signs the member out everywhere.
    public func resetPassword(email text: String, password: String, by: String = "command line") async throws(Failure) {
        try await setPassword(email: text, passwordHash: try Self.hash(password), by: by)
    }

    /// The same with the password hashed already.
    func setPassword(email text: String, passwordHash hash: String, by: String) async throws(Failure) {
        guard let email = StaffMember.normalisedEmail(text) else { throw .invalidEmail(text) }
        do {
            // A new password also lifts the lock that wrong ones put on the account.
            try await database.setStaffPassword(email: email, passwordHash: hash, now: clock(), audit: entry(by, .passwordReset, email))
        } catch {
            throw .unknownStaff(email)
        }
    }

    /// Gives a member of staff a new role and venues.
    @discardableResult
    public func changeRole(email text: String, role: StaffRole, venueIds: Set<String>, by: String = "command line") async throws(Failure) -> StaffMember {
        guard let email = StaffMember.normalisedEmail(text) else { throw .invalidEmail(text) }
        try Self.requireVenues(venueIds, for: role)
        let member: StaffMember
        do {
            member = try await database.setStaffRole(
                email: email, role: role, venueIds: venueIds,
                audit: entry(by, .staffRoleChanged, "\(email) (\(role.rawValue)\(role == .admin ? "" : ": " + venueIds.sorted().joined(separator: ", ")))")
            )
        } catch {
            throw .unknownStaff(email)
        }
        return member
    }

    /// Lifts the sign-in lock that wrong passwords put on the account, from every address.
    public func unlock(email text: String, by: String = "command line") async throws(Failure) {
        guard let email = StaffMember.normalisedEmail(text) else { throw .invalidEmail(text) }
        do {
            try await database.unlockStaff(email: email, now: clock(), audit: entry(by, .signInLockLifted, email))
        } catch {
            throw .unknownStaff(email)
        }
    }

    /// The audit log's line of an account change, written in the change's own transaction.
    private func entry(_ by: String, _ action: AuditAction, _ subject: String) -> AuditEntry {
        AuditEntry(at: clock(), staffEmail: by, venueId: nil, action: action, subject: subject, reason: nil)
    }

    /// An admin has every venue and names none; every other role names at least one.
    public static func requireVenues(_ venueIds: Set<String>, for role: StaffRole) throws(Failure) {
        if role == .admin, !venueIds.isEmpty { throw .venueForAdmin }
        if role != .admin, venueIds.isEmpty { throw .noVenue }
    }

    static func hash(_ password: String) throws(Failure) -> String {
        Bcrypt.hash(try validated(password), cost: cost)
    }

    /// The password when its length is allowed.
    static func validated(_ password: String) throws(Failure) -> String {
        guard passwordLength.contains(password.count), password.utf8.count <= 72 else { throw .weakPassword }
        return password
    }

    /// Checks a password against a stored hash, in constant time for equal lengths (bcrypt's own).
    static func verify(_ password: String, hash: String) -> Bool {
        password.utf8.count <= 256 && Bcrypt.verify(password, hash: hash)
    }
}
