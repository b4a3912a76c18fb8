// libFuzzer target: the multipart/form-data decoder of photo uploads (`FormFileExtractor`, on
// MultipartKit's MultipartParser), fed a body in random chunks with a fixed boundary.
//
// Input: byte 0 mod 8 = k, the count of chunk-length bytes that follow; those k bytes are the
// chunk lengths, used in turn (0 = an empty buffer); the rest is the body. k = 0 feeds the
// body in one buffer. Besides never crashing, the file's bytes must not depend on the
// chunking: the body is also decoded in one buffer and both results must agree.
import CFuzzDriver
import Foundation
@testable import GroupieServer
import NIOCore

private let boundary = "GroupieFuzzBoundary"
private let contentType = "multipart/form-data; boundary=\(boundary)"

private struct Outcome: Equatable {
    var failed = false
    var sawFile = false
    var file = Data()
}

private func decode(_ body: UnsafeBufferPointer<UInt8>, chunkLengths: [Int]) -> Outcome {
    var outcome = Outcome()
    let form: FormFileExtractor
    do {
        guard let made = try FormFileExtractor(contentType: contentType) else { fatalError("not taken as a form") }
        form = made
    } catch {
        fatalError("the fixed content type was refused: \(error)")
    }
    var start = 0, turn = 0
    while start < body.count {
        let length = chunkLengths.isEmpty ? body.count : min(chunkLengths[turn % chunkLengths.count], body.count - start)
        turn += 1
        let buffer = ByteBuffer(bytes: UnsafeBufferPointer(rebasing: body[start..<(start + length)]))
        start += length
        do {
            try form.feed(buffer)
        } catch {
            outcome.failed = true
            break
        }
        outcome.file.append(form.takeFileBytes())
    }
    outcome.sawFile = form.sawFile
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeBufferPointer(start: data, count: size)
    guard let first = input.first else { return 0 }
    let count = Int(first % 8)
    guard size >= 1 + count else { return 0 }
    var lengths = input[1..<(1 + count)].map { Int($0) }
    if !lengths.isEmpty, lengths.allSatisfy({ $0 == 0 }) { lengths.append(1) }
    let body = UnsafeBufferPointer(rebasing: input[(1 + count)...])

    let chunked = decode(body, chunkLengths: lengths)
    if !lengths.isEmpty {
        let whole = decode(body, chunkLengths: [])
        precondition(chunked.failed == whole.failed, "chunking changed whether the body is malformed: whole \(whole.failed), chunked \(chunked.failed)")
        if !whole.failed {
            precondition(chunked.sawFile == whole.sawFile, "chunking changed whether a file was seen")
            precondition(chunked.file == whole.file, "chunking changed the file's bytes: \(whole.file.count) bytes whole, \(chunked.file.count) chunked")
        }
    }
    return 0
}

// SwiftPM's `main` runs this file's top-level code: hand over to libFuzzer, which calls
// LLVMFuzzerTestOneInput above with each input.
exit(groupie_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv))
