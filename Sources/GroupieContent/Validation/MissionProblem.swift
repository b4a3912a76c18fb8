/// One thing wrong with a mission file, at the line and column where it is.
public struct MissionProblem: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable {
        case error, warning
    }

    public var path: String
    /// 1-based.
    public var line: Int
    /// 1-based, counted in Unicode scalars.
    public var column: Int
    public var severity: Severity
    public var message: String

    public init(path: String, line: Int, column: Int, severity: Severity, message: String) {
        self.path = path
        self.line = line
        self.column = column
        self.severity = severity
        self.message = message
    }

    /// `path:line:column: error|warning: message`, the form editors and compilers use.
    public var description: String {
        "\(path):\(line):\(column): \(severity.rawValue): \(message)"
    }
}
