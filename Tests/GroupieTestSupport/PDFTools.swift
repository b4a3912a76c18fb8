import Foundation

/// Reads PDF files with Debian's poppler-utils, independent of the library that made them.
public enum PDFTools {
    /// The output and exit status of a command found on the PATH (poppler's, zbarimg, vips).
    public static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let result = try ChildProcess.run(command: executable, arguments)
        return (result.status, result.output)
    }

    /// `pdfinfo`'s report.
    public static func info(_ pdf: Data) throws -> String {
        try withFile(pdf) { try run("pdfinfo", [$0]).output }
    }

    /// The text `pdftotext` finds.
    public static func text(_ pdf: Data) throws -> String {
        try withFile(pdf) { try run("pdftotext", [$0, "-"]).output }
    }

    /// The first page as PNG at `dpi`, as `pdftoppm` renders it.
    public static func firstPage(_ pdf: Data, dpi: Int = 100) throws -> Data {
        try withFile(pdf) { path in
            _ = try run("pdftoppm", ["-r", String(dpi), "-png", "-singlefile", path, path])
            defer { try? FileManager.default.removeItem(atPath: path + ".png") }
            return try Data(contentsOf: URL(fileURLWithPath: path + ".png"))
        }
    }

    private static func withFile<T>(_ pdf: Data, _ body: (String) throws -> T) throws -> T {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pdf-\(UUID().uuidString).pdf").path
        try pdf.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }
}
