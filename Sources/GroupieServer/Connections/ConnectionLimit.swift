import Foundation
import Logging

/// How many connections the process can hold: each is a file descriptor, so the cap may not
/// pass the process's file limit (raised to its hard limit first), with room for the database,
/// photos being written and collages being drawn.
enum ConnectionLimit {
    static let reservedDescriptors = 128

    static func allowed(_ wanted: Int, logger: Logger) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return wanted }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let possible = Int(clamping: limit.rlim_cur) - reservedDescriptors
        guard wanted > possible else { return wanted }
        let allowed = max(16, possible)
        logger.warning("serving at most \(allowed) connections, not \(wanted): the process may open \(limit.rlim_cur) files; raise it with ulimit -n")
        return allowed
    }
}
