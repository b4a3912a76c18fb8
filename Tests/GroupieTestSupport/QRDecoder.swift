import Foundation

/// Reads QR codes with Debian's `zbarimg`, independent of the library that made them.
public enum QRDecoder {
    public static func decode(_ png: Data) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString).png").path
        try png.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try PDFTools.run("zbarimg", ["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", path]).output.trimmingCharacters(in: .newlines)
    }
}

extension Collection where Element == UInt8 {
    /// Whether `subsequence` occurs in these bytes.
    public func contains(subsequence: [UInt8]) -> Bool {
        let bytes = Array(self)
        guard !subsequence.isEmpty, bytes.count >= subsequence.count else { return false }
        return (0...(bytes.count - subsequence.count)).contains { Array(bytes[$0..<($0 + subsequence.count)]) == subsequence }
    }
}
