import ArgumentParser
import Foundation
import GroupieContent

struct Missions: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Work with venues' mission files.",
        subcommands: [Validate.self]
    )
}

/// `groupie missions validate`: checks mission files without a server, in the form editors understand.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check mission files and print every problem as path:line:column: error|warning: message.",
        discussion: "Exits 0 when every file is valid (warnings allowed), 1 otherwise."
    )

    @Argument(help: "Mission files or folders of them. Default: ./missions.")
    var paths: [String] = []

    @Option(help: "Folder that icons, logos and stickers are looked up in (GROUPIE_ASSETS). Default ./assets.")
    var assets: String?

    func run() throws {
        let assetsDirectory = assets ?? ProcessInfo.processInfo.environment["GROUPIE_ASSETS"] ?? "./assets"
        let reader = MissionFileReader(assetsDirectory: assetsDirectory)
        var files: [String] = []
        var problemsOutsideFiles = 0
        for path in paths.isEmpty ? ["./missions"] : paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                print("\(path):1:1: error: no such file or folder")
                problemsOutsideFiles += 1
                continue
            }
            if isDirectory.boolValue {
                let folder = MissionFolder(directory: path.hasSuffix("/") ? String(path.dropLast()) : path, assetsDirectory: assetsDirectory)
                let (found, skipped) = try folder.listing()
                for problem in skipped {
                    print(problem)
                    problemsOutsideFiles += 1
                }
                if found.isEmpty {
                    print("\(path):1:1: error: the folder holds no .yaml mission files")
                    problemsOutsideFiles += 1
                }
                files += found
            } else {
                files.append(path)
            }
        }
        var errors = problemsOutsideFiles, warnings = 0
        for file in files {
            let report = reader.read(fileAt: file)
            for problem in report.problems { print(problem) }
            errors += report.errors.count
            warnings += report.warnings.count
        }
        let summary = "\(files.count) file(s) checked: \(errors) error(s), \(warnings) warning(s)\n"
        FileHandle.standardError.write(Data(summary.utf8))
        if errors > 0 { throw ExitCode(1) }
    }
}
