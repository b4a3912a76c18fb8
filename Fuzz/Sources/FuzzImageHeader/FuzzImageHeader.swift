// libFuzzer target: what an upload's bytes meet first. Sniffing (`PhotoFormat.detect`), the
// libvips header read (`PhotoProcessor.inspect(fileAt:)`, on the bytes written to a temporary
// file), and rebuilding the original as it is served from the allow-list (`ServedOriginal`).
import CFuzzDriver
import Foundation
import GroupieImaging

/// The served original, or nil when the file does not have its format's structure. The
/// orientation and size come from the input's first bytes, so that every branch is reached.
private func scrubLocation(_ data: Data, _ format: PhotoFormat) -> Data? {
    let orientation = Int(data.first ?? 1) % 9
    let width = 1 + Int(data.dropFirst().first ?? 0) * 97, height = 1 + Int(data.dropFirst(2).first ?? 0) * 89
    return try? ServedOriginal.make(from: data, format: format, orientation: orientation, width: width, height: height)
}

/// PhotoProcessor's init starts libvips once (uploads are blocked to JPEG, PNG, WebP, HEIF).
private let processor: PhotoProcessor = {
    do { return try PhotoProcessor() } catch { fatalError("libvips did not start: \(error)") }
}()

/// FUZZ_VERBOSE=1 prints what each input gave (to check the seeds reach libvips).
private let verbose = ProcessInfo.processInfo.environment["FUZZ_VERBOSE"] == "1"

/// One file per process (libFuzzer's -fork and -jobs run several processes), rewritten each run.
private let temporaryPath = NSTemporaryDirectory() + "/groupie-fuzz-image-\(getpid())"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(bytes: data, count: size)
    let detected = PhotoFormat.detect(bytes)

    // Header reading, as the upload path does it: the file on disk, then libvips.
    guard FileManager.default.createFile(atPath: temporaryPath, contents: bytes) else {
        fatalError("cannot write \(temporaryPath)")
    }
    do {
        // As uploads do: the structure first, then libvips.
        if let detected { try ServedOriginal.checkStructure(bytes, format: detected) }
        let header = try processor.inspect(fileAt: temporaryPath)
        if verbose { print("inspect: \(header)") }
        precondition(header.format == detected, "inspect says \(header.format), detect says \(String(describing: detected))")
        precondition((1...8).contains(header.orientation), "orientation \(header.orientation)")
        precondition(header.width > 0 && header.height > 0, "empty image \(header.width)x\(header.height)")
    } catch let failure as PhotoProcessor.Failure {
        if verbose { print("inspect refused: \(failure)") }
        // Refusing a file is the expected answer to most inputs.
    } catch let malformed as ServedOriginal.Malformed {
        if verbose { print("structure refused: \(malformed)") }
    } catch {
        fatalError("inspect threw something other than PhotoProcessor.Failure: \(error)")
    }

    // Location scrubbing, with every format (not only the detected one, so that the parsers
    // see any bytes); what it gave is scrubbed again.
    for format in PhotoFormat.allCases {
        let cleaned = scrubLocation(bytes, format)
        if verbose { print("scrub as \(format): \(cleaned.map { "\($0.count) bytes" } ?? "nil")") }
        if let cleaned {
            _ = scrubLocation(cleaned, format)
        }
    }
    return 0
}

// SwiftPM's `main` runs this file's top-level code: hand over to libFuzzer, which calls
// LLVMFuzzerTestOneInput above with each input.
exit(groupie_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv))
