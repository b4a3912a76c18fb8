/// Rules over the `after:` references between a venue's missions.
public enum MissionOrder {
    /// Every cycle of `after:` references, each as the mission ids along it, starting and
    /// ending at the mission that appears first in the venue. Unknown ids are ignored here.
    public static func cycles(in missions: [Mission]) -> [[String]] {
        let index = Dictionary(missions.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        enum Mark { case unvisited, inProgress, done }
        var marks = Array(repeating: Mark.unvisited, count: missions.count)
        var stack: [Int] = []
        var cycles: [[String]] = []
        var seenCycles = Set<[String]>()

        func visit(_ node: Int) {
            marks[node] = .inProgress
            stack.append(node)
            for reference in missions[node].after {
                guard let next = index[reference] else { continue }
                switch marks[next] {
                case .unvisited:
                    visit(next)
                case .inProgress:
                    guard let start = stack.lastIndex(of: next) else { continue }
                    var members = Array(stack[start...])
                    // Rotate so that the cycle starts at its earliest mission: one report per cycle.
                    let first = members.indices.min { members[$0] < members[$1] }!
                    members = Array(members[first...] + members[..<first])
                    let ids = members.map { missions[$0].id }
                    if seenCycles.insert(ids).inserted {
                        cycles.append(ids + [ids[0]])
                    }
                case .done:
                    break
                }
            }
            stack.removeLast()
            marks[node] = .done
        }
        for node in missions.indices where marks[node] == .unvisited {
            visit(node)
        }
        return cycles
    }
}
