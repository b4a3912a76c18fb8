import Foundation

/// What a member of a venue's staff may do. Each role can do what the roles below it can.
public enum StaffRole: String, Sendable, CaseIterable, Comparable {
    /// Sees the venue's groups, their albums and the audit log.
    case viewer
    /// Also hides, restores and deletes photos and closes groups.
    case moderator
    /// Also looks after the venue's missions and posters.
    case editor
    /// Everything, at every venue.
    case admin

    private var rank: Int { Self.allCases.firstIndex(of: self)! }
    public static func < (lhs: StaffRole, rhs: StaffRole) -> Bool { lhs.rank < rhs.rank }
}

/// What staff do in the console, each needing a least role.
public enum StaffAction: String, Sendable, CaseIterable {
    case view
    case moderate
    case editMissions

    public var leastRole: StaffRole {
        switch self {
        case .view: .viewer
        case .moderate: .moderator
        case .editMissions: .editor
        }
    }
}

/// A member of staff: an e-mail address to sign in with, a role, and the venues they look after.
public struct StaffMember: Sendable, Hashable, Identifiable {
    public var id: String
    public var email: String
    public var role: StaffRole
    /// The venues of their role; an admin's role reaches every venue whatever this lists.
    public var venueIds: Set<String>

    public init(id: String, email: String, role: StaffRole, venueIds: Set<String>) {
        self.id = id
        self.email = email
        self.role = role
        self.venueIds = venueIds
    }

    /// Whether they may see anything of `venueId` at all.
    public func reaches(venueId: String) -> Bool {
        role == .admin || venueIds.contains(venueId)
    }

    /// Whether they may do `action` at `venueId`.
    public func may(_ action: StaffAction, at venueId: String) -> Bool {
        reaches(venueId: venueId) && role >= action.leastRole
    }

    /// An e-mail address as staff sign in with it: trimmed and lower-cased, or nil when it is
    /// not shaped like one (one `@`, something either side, no spaces, at most 254 bytes).
    public static func normalisedEmail(_ text: String) -> String? {
        let email = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            email.utf8.count <= 254, !email.contains(where: { $0.isWhitespace || $0.isNewline || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } })
        else { return nil }
        return email
    }
}
