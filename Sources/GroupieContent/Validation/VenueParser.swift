import Foundation
import GroupieCore
import Yams

/// Walks the YAML tree of one mission file along the format's rules, collecting every
/// problem with its position instead of stopping at the first.
///
/// The rules are split by what they read: the venue, its missions, their tasks and their
/// rewards each have a file of their own; the texts all of them show are in `MissionMessages`.
final class VenueParser {
    /// Bounds the work a file of YAML aliases pointing at aliases could ask for.
    static let maxVisits = 2_000_000

    let path: String
    let expectedId: String
    let assetsDirectory: String?
    private(set) var problems: [MissionProblem] = []
    /// The venue's languages, once read: every text must have each of them.
    var languages: [String] = []
    /// Whether the venue has a map (readable or not), once read: a mission's pin needs one.
    var hasMap = false
    var visits = 0
    var checkedAssets: [String: Bool] = [:]

    struct TooComplex: Error {}

    init(path: String, expectedId: String, assetsDirectory: String?) {
        self.path = path
        self.expectedId = expectedId
        self.assetsDirectory = assetsDirectory
    }

    // MARK: - Problems

    func error(_ mark: Mark?, _ message: String) {
        problems.append(MissionProblem(path: path, line: mark?.line ?? 1, column: mark?.column ?? 1, severity: .error, message: message))
    }

    func warning(_ mark: Mark?, _ message: String) {
        problems.append(MissionProblem(path: path, line: mark?.line ?? 1, column: mark?.column ?? 1, severity: .warning, message: message))
    }

    // MARK: - Document

    func parse(_ text: String) -> Venue? {
        if let deep = YAMLNesting.tooDeep(text) {
            problems.append(MissionProblem(path: path, line: deep.line, column: deep.column, severity: .error, message: MissionMessages.tooDeep))
            return nil
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let yamlError as YamlError {
            report(yamlError, in: text)
            return nil
        } catch {
            self.error(nil, MissionMessages.yamlSyntax("\(error)"))
            return nil
        }
        guard let root, !root.isNull else {
            error(nil, MissionMessages.emptyFile)
            return nil
        }
        if let expansion = expansionProblem(root, text: text) {
            problems.append(expansion)
            return nil
        }
        do {
            return try venue(root)
        } catch {
            self.error(root.mark, MissionMessages.tooComplex)
            return nil
        }
    }

    private func report(_ yamlError: YamlError, in text: String) {
        switch yamlError {
        case .scanner(let context, let problem, let mark, _),
            .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            error(mark, MissionMessages.yamlSyntax(problem, context: context))
        case .reader(let problem, let offset, _, _):
            // The reader gives a byte offset, not a mark; it is turned into a line and a column here.
            let prefix = text.utf8.prefix(offset ?? 0)
            let line = prefix.filter { $0 == UInt8(ascii: "\n") }.count + 1
            let column = (String(decoding: prefix.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).last ?? [], as: UTF8.self)).unicodeScalars.count + 1
            problems.append(MissionProblem(path: path, line: line, column: column, severity: .error, message: MissionMessages.yamlSyntax(problem)))
        default:
            error(nil, MissionMessages.yamlSyntax("\(yamlError)"))
        }
    }
}
