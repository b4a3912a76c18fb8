import ArgumentParser
import Foundation
import GroupieContent
import GroupieCore
import GroupieServer

/// `groupie staff`: the accounts of the venues' staff, in the database of `serve`.
struct Staff: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add, list, change and remove the accounts of the staff console (/staff).",
        subcommands: [Add.self, List.self, Remove.self, ResetPassword.self, SetRole.self, Unlock.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a member of staff; the password is asked for (or read as one line from standard input).")

        @Argument(help: "The e-mail address they sign in with.")
        var email: String
        @Option(help: "A venue id they look after; repeat for several. None for an admin, who has every venue.")
        var venue: [String] = []
        @Option(help: "viewer, moderator, editor or admin (every venue).")
        var role: StaffRole
        @Option(help: "The missions folder of 'groupie serve', whose files declare the venues (default: GROUPIE_MISSIONS, else ./missions).")
        var missions: String?
        @Flag(name: .customLong("venue-to-come"), help: "Accept a --venue that no mission file declares yet: its file is still to come.")
        var venueToCome = false
        @OptionGroup var options: StoreOptions

        func run() async throws {
            try Self.requireVenues(venue, for: role, missions: missions, venueToCome: venueToCome)
            let accounts = try await options.accounts(creating: true)
            let password = try Password.read(confirm: true)
            do throws(StaffAccounts.Failure) {
                let member = try await accounts.add(email: email, password: password, role: role, venueIds: Set(venue))
                print("\(member.email) added as \(member.role.rawValue)" + (member.role == .admin ? " of every venue" : " of \(member.venueIds.sorted().joined(separator: ", "))"))
            } catch {
                throw ValidationError(error.description)
            }
        }

        /// Refuses venues beside an admin, none for another role, and one that no file of the
        /// missions folder declares unless it is to come.
        static func requireVenues(_ venues: [String], for role: StaffRole, missions: String?, venueToCome: Bool) throws {
            do throws(StaffAccounts.Failure) {
                try StaffAccounts.requireVenues(Set(venues), for: role)
            } catch {
                throw ValidationError(error.description)
            }
            if !venues.isEmpty, !venueToCome { try requireDeclared(venues, missions: missions) }
        }

        /// Refuses a venue id that no file of the missions folder declares, naming those that do.
        static func requireDeclared(_ venues: [String], missions: String?) throws {
            let folder = missions ?? ProcessInfo.processInfo.environment["GROUPIE_MISSIONS"].flatMap { $0.isEmpty ? nil : $0 } ?? "./missions"
            let declared: [String: String]
            do {
                declared = try MissionFolder(directory: folder, assetsDirectory: nil).declaredVenueIds()
            } catch {
                throw ValidationError("The missions folder \(folder) cannot be read (\(error)); give it with --missions, or --venue-to-come.")
            }
            let unknown = venues.filter { declared[$0] == nil }
            guard !unknown.isEmpty else { return }
            let known = declared.keys.sorted()
            throw ValidationError(
                "No mission file in \(folder) declares the venue \(unknown.map { "'\($0)'" }.joined(separator: ", ")). "
                    + (known.isEmpty ? "It declares none." : "The venues are: \(known.joined(separator: ", ")).")
                    + " Add --venue-to-come if its file is still to come."
            )
        }
    }

    struct SetRole: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-role", abstract: "Give a member of staff a new role and venues (their venues are replaced by those given).")
        @Argument var email: String
        @Option(help: "viewer, moderator, editor or admin (every venue).")
        var role: StaffRole
        @Option(help: "A venue id they look after; repeat for several. None for an admin.")
        var venue: [String] = []
        @Option(help: "The missions folder of 'groupie serve' (default: GROUPIE_MISSIONS, else ./missions).")
        var missions: String?
        @Flag(name: .customLong("venue-to-come"), help: "Accept a --venue that no mission file declares yet.")
        var venueToCome = false
        @OptionGroup var options: StoreOptions

        func run() async throws {
            try Add.requireVenues(venue, for: role, missions: missions, venueToCome: venueToCome)
            let accounts = try await options.accounts()
            do throws(StaffAccounts.Failure) {
                let member = try await accounts.changeRole(email: email, role: role, venueIds: Set(venue))
                print("\(member.email) is now \(member.role.rawValue)" + (member.role == .admin ? " of every venue" : " of \(member.venueIds.sorted().joined(separator: ", "))"))
            } catch {
                throw ValidationError(error.description)
            }
        }
    }

    struct Unlock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lift the sign-in lock that wrong passwords put on an account (from every address).")
        @Argument var email: String
        @OptionGroup var options: StoreOptions

        func run() async throws {
            let accounts = try await options.accounts()
            do throws(StaffAccounts.Failure) {
                try await accounts.unlock(email: email)
            } catch {
                throw ValidationError(error.description)
            }
            print("\(email) may sign in again")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the members of staff, their roles and venues.")
        @OptionGroup var options: StoreOptions

        func run() async throws {
            for member in try await options.accounts().list() {
                print("\(member.email)\t\(member.role.rawValue)\t\(member.role == .admin ? "*" : member.venueIds.sorted().joined(separator: ","))")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a member of staff and end their sessions.")
        @Argument var email: String
        @OptionGroup var options: StoreOptions

        func run() async throws {
            let accounts = try await options.accounts()
            do throws(StaffAccounts.Failure) {
                try await accounts.remove(email: email)
            } catch {
                throw ValidationError(error.description)
            }
            print("\(email) removed")
        }
    }

    struct ResetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set a new password and end the member's sessions.")
        @Argument var email: String
        @OptionGroup var options: StoreOptions

        func run() async throws {
            let accounts = try await options.accounts()
            let password = try Password.read(confirm: true)
            do throws(StaffAccounts.Failure) {
                try await accounts.resetPassword(email: email, password: password)
            } catch {
                throw ValidationError(error.description)
            }
            print("password of \(email) changed; their sessions ended and their sign-in lock lifted")
        }
    }
}

extension StaffRole: ExpressibleByArgument {}

/// A password from the terminal without echo, asked twice; or one line from standard input
/// when it is not a terminal (for scripts).
enum Password {
    static func read(confirm: Bool) throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            guard let line = readLine(strippingNewline: true) else { throw ValidationError("No password on standard input.") }
            return line
        }
        let first = try prompt("Password: ")
        if confirm, try prompt("Again: ") != first { throw ValidationError("The two passwords differ.") }
        return first
    }

    private static func prompt(_ text: String) throws -> String {
        FileHandle.standardError.write(Data(text.utf8))
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        guard let line = readLine(strippingNewline: true) else { throw ValidationError("No password given.") }
        return line
    }
}
