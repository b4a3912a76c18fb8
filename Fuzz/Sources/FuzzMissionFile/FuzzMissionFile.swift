// libFuzzer target: a mission file's bytes, as `groupie missions validate` and the reloader
// read them. Any input must give a report (problems, or a venue) and never crash or hang.
import CFuzzDriver
import Foundation
@testable import GroupieContent

/// The broken-mission fixtures' assets, so that icon and sticker paths are checked against a
/// real folder (located from this file, so the binary runs from any directory).
private let assets: String = {
    let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return root.appendingPathComponent("Tests/GroupieContentTests/BrokenMissions/assets").path
}()

private let reader = MissionFileReader(assetsDirectory: assets)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(bytes: data, count: size)
    // The expected venue id is the file name; "art-museum" matches the sample seed.
    let report = reader.read(bytes: bytes, path: "art-museum.yaml")
    for problem in report.problems {
        precondition(problem.line >= 1 && problem.column >= 1, "problem without a position: \(problem)")
        precondition(!problem.message.isEmpty, "problem without a message")
    }
    precondition((report.venue != nil) == report.errors.isEmpty, "a venue must come exactly when there is no error")
    precondition(report.contentHash.count == 64, "content hash is not SHA-256 hex")
    return 0
}

// SwiftPM's `main` runs this file's top-level code: hand over to libFuzzer, which calls
// LLVMFuzzerTestOneInput above with each input.
exit(groupie_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv))
