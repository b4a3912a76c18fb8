import Foundation
import Glibc
import Synchronization

/// A command the tests start: `posix_spawn` and `waitpid`, nothing else. Foundation's `Process`
/// on Linux reads `/proc/self/fd` before each start with a copy that runs past the end of its
/// directory buffer; once the test process holds over about 1,350 descriptors (every suite at
/// once does), that read now and then lands on an unmapped page and the whole run dies of a
/// segmentation fault. This starts the command with standard input, output and error on files
/// (never pipes, which a server the command leaves running would hold open), closes every other
/// descriptor in the child, and learns of its end from `waitpid` alone.
public final class ChildProcess: Sendable {
    public enum Destination: Sendable {
        /// `/dev/null`.
        case discard
        /// A file, created or truncated.
        case file(String)
    }

    public enum TerminationReason: Sendable, Equatable {
        case exit, uncaughtSignal
    }

    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
    }

    public let processIdentifier: pid_t
    /// The raw status `waitpid` gave, once the command has ended.
    private let ended = Mutex<Int32?>(nil)

    /// Starts `executable` (a path) with `arguments`; `environment` replaces the test process's
    /// own when given, `input` becomes standard input (empty when nil).
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        input: Data? = nil, output: Destination = .discard, errors: Destination = .discard
    ) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-child-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let inputPath = scratch + "/input"
        try (input ?? Data()).write(to: URL(fileURLWithPath: inputPath))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
        for (descriptor, destination) in [(Int32(1), output), (Int32(2), errors)] {
            switch destination {
            case .discard: posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
            case .file(let path): posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            }
        }
        Self.closeFrom(3, &actions)
        if let directory { try Self.changeDirectory(to: directory, &actions) }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let pairs = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp = pairs.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        // The child starts with no signal blocked and every signal at its default, whatever the
        // thread that starts it had: Swift's threads block some, and SIGPIPE is ignored here.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw StartFailure(description: "\(executable) could not start: \(String(cString: strerror(result)))")
        }
        processIdentifier = pid
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does not
    /// declare: found at run time.
    private static func closeFrom(_ first: Int32, _ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, first)
    }

    /// glibc's `posix_spawn_file_actions_addchdir_np`, likewise.
    private static func changeDirectory(to directory: String, _ actions: inout posix_spawn_file_actions_t) throws {
        typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") else {
            throw StartFailure(description: "this C library cannot start a command in another folder")
        }
        _ = unsafeBitCast(symbol, to: AddChdir.self)(&actions, directory)
    }

    /// Runs `executable` to its end: its exit status, standard output and standard error.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil, input: Data? = nil
    ) throws -> Finished {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-run-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let child = try ChildProcess(
            executable, arguments, environment: environment, directory: directory, input: input,
            output: .file(scratch + "/out"), errors: .file(scratch + "/err")
        )
        child.waitUntilExit()
        return Finished(
            status: child.terminationStatus,
            outputData: (try? Data(contentsOf: URL(fileURLWithPath: scratch + "/out"))) ?? Data(),
            errorData: (try? Data(contentsOf: URL(fileURLWithPath: scratch + "/err"))) ?? Data()
        )
    }

    /// What a command run to its end left.
    public struct Finished: Sendable {
        public let status: Int32
        public let outputData: Data
        public let errorData: Data
        public var output: String { String(decoding: outputData, as: UTF8.self) }
        public var errors: String { String(decoding: errorData, as: UTF8.self) }
    }

    /// `run` through `/usr/bin/env`, which finds `command` on the path.
    public static func run(command: String, _ arguments: [String], input: Data? = nil) throws -> Finished {
        try run("/usr/bin/env", [command] + arguments, input: input)
    }

    /// The raw status once the command has ended, waiting for it when `blocking`; `waitpid`
    /// runs outside the lock, so that `isRunning` never waits behind `waitUntilExit`.
    private func reap(blocking: Bool) -> Int32? {
        if let status = ended.withLock({ $0 }) { return status }
        var raw: Int32 = 0
        while true {
            let result = waitpid(processIdentifier, &raw, blocking ? 0 : WNOHANG)
            if result == processIdentifier {
                ended.withLock { $0 = raw }
                return raw
            }
            if result == -1 && errno == EINTR { continue }
            if result == -1 && errno == ECHILD {
                // Reaped by another caller, which stores the status at once.
                if let status = ended.withLock({ $0 }) { return status }
                if blocking { usleep(1_000); continue }
            }
            return nil
        }
    }

    public var isRunning: Bool { reap(blocking: false) == nil }

    public func waitUntilExit() { _ = reap(blocking: true) }

    /// Sends SIGTERM.
    public func terminate() { signal(SIGTERM) }

    public func signal(_ number: Int32) {
        if isRunning { kill(processIdentifier, number) }
    }

    /// The exit code, or the signal that ended the command; -1 while it runs.
    public var terminationStatus: Int32 {
        guard let raw = reap(blocking: false) else { return -1 }
        return raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
    }

    public var terminationReason: TerminationReason {
        guard let raw = reap(blocking: false) else { return .exit }
        return raw & 0x7f == 0 ? .exit : .uncaughtSignal
    }
}
