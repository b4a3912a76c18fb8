import Foundation

/// Why a change of membership was refused.
public enum MembershipError: Error, Sendable, Equatable {
    case unknownCode
    case groupFull(maximum: Int)
    /// The group's joining time is over (`joinableUntil` has passed).
    case joiningTimeOver
    case groupNotFound
    case notAMember
    case notTheCreator
    /// The venue's staff closed the group.
    case groupClosed(Group.Closure)
}

/// A group as a change of membership finds it: the group, and the players who are its members
/// now, longest-standing first (the order in which the creator's role passes on).
public struct GroupSeats: Sendable, Equatable {
    public var group: Group
    public var memberIds: [String]

    public init(group: Group, memberIds: [String]) {
        self.group = group
        self.memberIds = memberIds
    }
}

/// One change a decision asks a backend to write. Every backend writes each kind the same way
/// and decides nothing itself: the rules below chose them.
public enum GroupMutation: Sendable, Equatable {
    /// The player's membership of the group ends now.
    case endMembership(groupId: String, playerId: String)
    /// The player becomes a member of the group now.
    case addMembership(groupId: String, playerId: String)
    /// The group's creator role passes to the player (nil: to nobody, until someone joins).
    case setCreator(groupId: String, playerId: String?)
    /// The venue's staff close the group.
    case close(groupId: String, Group.Closure)
    /// The venue's staff reopen a group they closed.
    case reopen(groupId: String)
    /// The player's name changes.
    case rename(playerId: String, name: String)
}

/// What a command does: the mutations to write, then the events to store with them, each in
/// its group's sequence, in this order. An empty decision changes nothing.
public struct GroupDecision: Sendable, Equatable {
    public var mutations: [GroupMutation]
    public var events: [(groupId: String, payload: GroupEventPayload)]

    public init(mutations: [GroupMutation] = [], events: [(groupId: String, payload: GroupEventPayload)] = []) {
        self.mutations = mutations
        self.events = events
    }

    /// The events, grouped by group in the order each group first appears.
    public var eventsByGroup: [(groupId: String, payloads: [GroupEventPayload])] {
        var order: [String] = []
        var byGroup: [String: [GroupEventPayload]] = [:]
        for (groupId, payload) in events {
            if byGroup[groupId] == nil { order.append(groupId) }
            byGroup[groupId, default: []].append(payload)
        }
        return order.map { ($0, byGroup[$0]!) }
    }

    public var isEmpty: Bool { mutations.isEmpty && events.isEmpty }

    static func + (lhs: GroupDecision, rhs: GroupDecision) -> GroupDecision {
        GroupDecision(mutations: lhs.mutations + rhs.mutations, events: lhs.events + rhs.events)
    }

    public static func == (lhs: GroupDecision, rhs: GroupDecision) -> Bool {
        lhs.mutations == rhs.mutations && lhs.events.map(\.groupId) == rhs.events.map(\.groupId)
            && lhs.events.map(\.payload) == rhs.events.map(\.payload)
    }
}

/// Who may join, leave and run a group, and what each change tells its members: decided here
/// from a snapshot that the backend reads in the change's transaction, and written by it with
/// the events in the same transaction.
public enum MembershipRules {
    /// What every change a member makes to their group asks first: that the player's current
    /// group (`current`) is `groupId` (an outsider learns nothing: `groupNotFound`), and, for a
    /// change that adds to the group (`adding`: a photo, a claim, an answer), that the venue's
    /// staff have not closed `group`.
    public static func requireMember(of groupId: String, current: String?, group: Group?, adding: Bool) throws(MembershipError) {
        guard current == groupId else { throw .groupNotFound }
        if adding { try requireOpen(group) }
    }

    /// A change that adds to `group` needs it open: refused once the venue's staff closed it.
    public static func requireOpen(_ group: Group?) throws(MembershipError) {
        if let closed = group?.closed { throw .groupClosed(closed) }
    }

    /// A player leaving `seats`' group (of their own accord, removed, or erased): the group is
    /// told, and a creator who leaves hands the group to its longest-standing member (a group
    /// with no creator passes the same way).
    public static func leave(_ seats: GroupSeats, playerId: String) -> GroupDecision {
        var decision = GroupDecision(
            mutations: [.endMembership(groupId: seats.group.id, playerId: playerId)],
            events: [(seats.group.id, .memberLeft(playerId: playerId))]
        )
        let creator = seats.group.creatorId
        if creator == playerId || creator == nil {
            let successor = seats.memberIds.first { $0 != playerId }
            if successor != creator {
                decision.mutations.append(.setCreator(groupId: seats.group.id, playerId: successor))
            }
        }
        return decision
    }

    /// `player` joins `target`, leaving `current` (the group they are in, if any). Joining the
    /// group one is in changes nothing.
    public static func join(
        _ target: GroupSeats, player: Player, current: GroupSeats?, maximumSize: Int, now: Date
    ) throws(MembershipError) -> GroupDecision {
        let group = target.group
        if current?.group.id == group.id || target.memberIds.contains(player.id) { return GroupDecision() }
        if let closed = group.closed { throw .groupClosed(closed) }
        guard group.isJoinable(at: now) else { throw .joiningTimeOver }
        guard hasRoom(members: target.memberIds.count, maximumSize: maximumSize) else { throw .groupFull(maximum: maximumSize) }
        var decision = current.map { leave($0, playerId: player.id) } ?? GroupDecision()
        decision.mutations.append(.addMembership(groupId: group.id, playerId: player.id))
        // A group made in advance, or left by everyone, passes to whoever joins it first.
        if group.creatorId == nil {
            decision.mutations.append(.setCreator(groupId: group.id, playerId: player.id))
        }
        decision.events.append((group.id, .memberJoined(playerId: player.id, name: player.name)))
        return decision
    }

    /// Whether a group of `members` has room for one more, at a venue that allows `maximumSize`:
    /// what a join decides, and what the join page says before anyone types a name.
    public static func hasRoom(members: Int, maximumSize: Int) -> Bool {
        members < maximumSize
    }

    /// A player starts `group` (just made, with them as creator), leaving `current`. The new
    /// group tells no one: its creator is its only member.
    public static func create(_ group: Group, creatorId: String, current: GroupSeats?) -> GroupDecision {
        var decision = current.map { leave($0, playerId: creatorId) } ?? GroupDecision()
        decision.mutations.append(.addMembership(groupId: group.id, playerId: creatorId))
        return decision
    }

    /// `actorId` ends `playerId`'s membership: anyone may leave; only the creator may remove
    /// someone else; a stranger learns nothing of the group.
    public static func remove(_ seats: GroupSeats, playerId: String, by actorId: String) throws(MembershipError) -> GroupDecision {
        guard seats.memberIds.contains(actorId) else { throw .groupNotFound }
        if playerId != actorId, seats.group.creatorId != actorId { throw .notTheCreator }
        guard seats.memberIds.contains(playerId) else { throw .notAMember }
        return leave(seats, playerId: playerId)
    }

    /// The venue's staff close a group, saying why; closing a closed group changes nothing.
    public static func close(_ group: Group, reason: String, now: Date) -> GroupDecision {
        guard group.closed == nil else { return GroupDecision() }
        return GroupDecision(
            mutations: [.close(groupId: group.id, Group.Closure(at: now, reason: reason))],
            events: [(group.id, .groupClosed(reason: reason))]
        )
    }

    /// The venue's staff reopen a closed group: it takes photos again, and members again until
    /// its joining time is over. Reopening an open group changes nothing.
    public static func reopen(_ group: Group) -> GroupDecision {
        guard group.closed != nil else { return GroupDecision() }
        return GroupDecision(mutations: [.reopen(groupId: group.id)], events: [(group.id, .groupReopened)])
    }

    /// A player takes a new name; their group, if they are in one, is told. The same name
    /// changes nothing.
    public static func rename(_ player: Player, to name: String, groupId: String?) -> GroupDecision {
        guard name != player.name else { return GroupDecision() }
        var decision = GroupDecision(mutations: [.rename(playerId: player.id, name: name)])
        if let groupId {
            decision.events.append((groupId, .memberRenamed(playerId: player.id, name: name)))
        }
        return decision
    }
}

extension Group {
    /// The group after `mutations`: its creator and closure as they leave it.
    public func applying(_ mutations: [GroupMutation]) -> Group {
        var group = self
        for mutation in mutations {
            switch mutation {
            case .setCreator(let id, let playerId) where id == group.id: group.creatorId = playerId
            case .close(let id, let closure) where id == group.id: group.closed = closure
            case .reopen(let id) where id == group.id: group.closed = nil
            default: break
            }
        }
        return group
    }
}

extension [Member] {
    /// The members of `group` after `mutations`, these being its members before (in the order
    /// they joined): a membership that ends leaves, one that begins comes after every member
    /// who joined by `now` (joined `now`, named from `names`), a rename renames, and the creator
    /// is the one the mutations leave.
    public func applying(_ mutations: [GroupMutation], to group: Group, names: [String: String], at now: Date) -> [Member] {
        var members = self
        for mutation in mutations {
            switch mutation {
            case .endMembership(let groupId, let playerId) where groupId == group.id:
                members.removeAll { $0.playerId == playerId }
            case .addMembership(let groupId, let playerId) where groupId == group.id && !members.contains(where: { $0.playerId == playerId }):
                // Another instance's clock may be ahead: the order is the time joined's.
                let index = members.firstIndex { $0.joinedAt > now } ?? members.endIndex
                members.insert(Member(playerId: playerId, name: names[playerId] ?? "", joinedAt: now, isCreator: false), at: index)
            case .rename(let playerId, let name):
                for index in members.indices where members[index].playerId == playerId { members[index].name = name }
            default: break
            }
        }
        let creatorId = group.applying(mutations).creatorId
        for index in members.indices { members[index].isCreator = members[index].playerId == creatorId }
        return members
    }
}
