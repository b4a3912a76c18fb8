import Tracing

/// Which groups' collages are being refreshed, and which must be refreshed once more because
/// their photos changed meanwhile. A group is refreshed by one task at a time; changes that
/// come while it runs fold into one more round, traced in the context of the latest change
/// that asked for it: the collage a photo completes is drawn in that upload's trace, not in
/// the trace of whichever earlier upload happened to start the refresh.
struct CollageRefreshes {
    private var running: Set<String> = []
    private var again: [String: ServiceContext] = [:]

    /// Starts a refresh of the group, or, when one runs, asks it for one more round in
    /// `context`. True when the caller is to run the refresh.
    mutating func start(_ groupId: String, context: ServiceContext) -> Bool {
        guard running.insert(groupId).inserted else {
            again[groupId] = context
            return false
        }
        again[groupId] = nil
        return true
    }

    /// Asks the running refresh for one more round in `context`, unless a change already
    /// asked for one in its own (a later change's trace is the one to keep).
    mutating func repeatOnce(_ groupId: String, context: ServiceContext) {
        if again[groupId] == nil { again[groupId] = context }
    }

    /// The context of the next round, or nil when the group's refresh is over (and no
    /// longer running).
    mutating func next(_ groupId: String) -> ServiceContext? {
        guard let context = again.removeValue(forKey: groupId) else {
            running.remove(groupId)
            return nil
        }
        return context
    }

    /// Ends the group's refresh early (it failed), forgetting any round it was asked for.
    mutating func stop(_ groupId: String) {
        running.remove(groupId)
        again[groupId] = nil
    }
}
