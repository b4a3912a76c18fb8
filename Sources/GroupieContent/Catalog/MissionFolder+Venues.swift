import Foundation
import GroupieCore

extension MissionFolder {
    /// The venue id each mission file declares, broken files too (a file whose timezone is
    /// wrong still names its venue): what `groupie staff add` checks a venue against, so that a
    /// misspelt id is refused instead of giving a member of staff a console without a venue.
    public func declaredVenueIds() throws -> [String: String] {
        var declared: [String: String] = [:]
        for path in try listing().missionFiles {
            let id = reader.read(fileAt: path).venue?.id ?? Self.topLevelId(ofFileAt: path)
            if let id, declared[id] == nil { declared[id] = path }
        }
        return declared
    }

    /// The `id:` at the start of a line of a file that does not make a venue, if it has one. Read
    /// as lines, not as YAML: the file may be anything, aliases that expand without end too.
    static func topLevelId(ofFileAt path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), text.utf8.count <= MissionFileReader.maxFileSize else { return nil }
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) where line.hasPrefix("id:") {
            let value = line.dropFirst(3).split(separator: "#", maxSplits: 1).first ?? ""
            let id = value.trimmingCharacters(in: CharacterSet(charactersIn: " \t\r\"'"))
            return Identifier.isValid(id) ? id : nil
        }
        return nil
    }
}
