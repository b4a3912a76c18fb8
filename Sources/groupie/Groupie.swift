import ArgumentParser
import Foundation

@main
struct Groupie: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "groupie",
        abstract: "The Groupie server: collaborative photo missions for museum visitors.",
        subcommands: [Serve.self, Migrate.self, Backup.self, Restore.self, Doctor.self, Export.self, Import.self, Missions.self, Collage.self, Staff.self]
    )

    /// As ArgumentParser's own, except that a value a command refuses while it runs (a
    /// `ValidationError` thrown by `run`) is followed by that command's usage, not the top level's.
    static func main() async {
        let command: any ParsableCommand
        do {
            command = try await asyncParseAsRoot(nil)
        } catch {
            exit(withError: error)
        }
        do {
            var running = command
            if var asyncCommand = running as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try running.run()
            }
        } catch let error as ValidationError {
            FileHandle.standardError.write(Data(refusal(error.message, of: type(of: command)).utf8))
            exit(withError: ExitCode.validationFailure)
        } catch {
            exit(withError: error)
        }
    }

    /// What is printed when `command` refuses a value as it runs: the reason, the command's
    /// usage and where its help is, as ArgumentParser says it of a value refused while parsing.
    static func refusal(_ message: String, of command: any ParsableCommand.Type) -> String {
        let usage = usageString(for: command)
        let path = usage.split(separator: " ").prefix { !"<[-".contains($0.first ?? "-") }.joined(separator: " ")
        return "Error: \(message)\nUsage: \(usage)\n  See '\(path) --help' for more information.\n"
    }
}
