import Foundation

/// Players playing one venue together.
public struct Group: Sendable, Hashable, Identifiable {
    public var id: String
    public var venueId: String
    public var name: String?
    public var joinCode: JoinCode
    /// Nil only in the instant between the last member leaving and the group being left empty.
    public var creatorId: String?
    public var createdAt: Date
    public var joinableUntil: Date
    /// When the venue's staff closed the group, and why: no more joins or photos after that.
    public var closed: Closure?

    public struct Closure: Sendable, Hashable {
        public var at: Date
        public var reason: String

        public init(at: Date, reason: String) {
            self.at = at
            self.reason = reason
        }
    }

    public init(id: String, venueId: String, name: String?, joinCode: JoinCode, creatorId: String?, createdAt: Date, joinableUntil: Date, closed: Closure? = nil) {
        self.id = id
        self.venueId = venueId
        self.name = name
        self.joinCode = joinCode
        self.creatorId = creatorId
        self.createdAt = createdAt
        self.joinableUntil = joinableUntil
        self.closed = closed
    }

    public func isJoinable(at now: Date) -> Bool { closed == nil && now < joinableUntil }
}

/// A current member of a group.
public struct Member: Sendable, Hashable {
    public var playerId: String
    public var name: String
    public var joinedAt: Date
    public var isCreator: Bool

    public init(playerId: String, name: String, joinedAt: Date, isCreator: Bool) {
        self.playerId = playerId
        self.name = name
        self.joinedAt = joinedAt
        self.isCreator = isCreator
    }
}
