import Foundation
import Yams

/// Where each mission of a valid mission file starts, so that the editor can show the mission
/// at its cursor.
public enum MissionFileOutline {
    /// Each mission's id and the 1-based line its entry starts on, in the file's order. Read
    /// only from a text the reader found valid (whose YAML is bounded and has no unbounded
    /// aliases); empty when the text is not a mapping with a list of missions.
    public static func missionLines(_ text: String) -> [(id: String, line: Int)] {
        // Never composed when it nests too deep: Yams would recurse through every level.
        guard YAMLNesting.tooDeep(text) == nil, let root = try? Yams.compose(yaml: text), let missions = root["missions"]?.sequence else { return [] }
        return missions.compactMap { node in
            guard let id = node["id"]?.string, let mark = node.mark else { return nil }
            return (id, mark.line)
        }
    }

    /// The id of the mission whose entry holds `line`: the last one that starts at or before it.
    public static func mission(at line: Int, in text: String) -> String? {
        missionLines(text).last { $0.line <= line }?.id
    }
}
