import CVipsShim
import GroupieCore
import Foundation
import Synchronization

/// Turns an uploaded file into what Groupie keeps and serves, through libvips.
/// Every method blocks: call them from a thread pool, never from Swift's cooperative threads.
public struct PhotoProcessor: Sendable {
    public struct Limits: Sendable {
        public var maxPixels: Int
        /// Pixels × bands × bytes per sample: what decoding costs, which pixels alone do not
        /// say (a 16-bit RGBA photo decodes to eight bytes a pixel, an 8-bit RGB one to three).
        public var maxDecodedBytes: Int
        public var minEdge: Int
        /// The long side over the short one, for uploads (`requirePhotoShape`): a phone's widest
        /// panorama is about 8; a photo thousands of times longer than wide is no photo.
        public var maxAspectRatio: Int

        public init(maxPixels: Int = 100_000_000, maxDecodedBytes: Int = 300_000_000, minEdge: Int = 64, maxAspectRatio: Int = 20) {
            self.maxPixels = maxPixels
            self.maxDecodedBytes = maxDecodedBytes
            self.minEdge = minEdge
            self.maxAspectRatio = maxAspectRatio
        }
    }

    /// What the header says, before any pixel is decoded.
    public struct Header: Sendable, Equatable {
        public var format: PhotoFormat
        public var width: Int
        public var height: Int
        /// Samples per pixel and bytes per sample, once decoded.
        public var bands: Int = 3
        public var sampleBytes: Int = 1
        /// EXIF orientation, 1 to 8.
        public var orientation: Int

        /// Width and height as the photo is seen, after its orientation is applied.
        public var orientedWidth: Int { orientation >= 5 ? height : width }
        public var orientedHeight: Int { orientation >= 5 ? width : height }
        public var decodedBytes: Int { width * height * bands * sampleBytes }
    }

    public enum Failure: Error, Sendable, Equatable {
        case unsupportedFormat
        case unreadable(String)
        case tooLarge(width: Int, height: Int)
        case tooManyDecodedBytes(Int)
        case tooSmall(width: Int, height: Int)
        case tooNarrow(width: Int, height: Int)
        case processing(String)
    }

    /// The sizes Groupie serves besides the original: long edge in pixels, JPEG quality.
    public enum Derivative: String, Sendable, CaseIterable {
        case display, thumb

        public var longEdge: Int { self == .display ? 1600 : 400 }
        var quality: Int { self == .display ? 85 : 80 }
    }

    public let limits: Limits

    private static let started: Bool = groupie_vips_start(1) == 0

    public init(limits: Limits = Limits()) throws {
        guard Self.started else { throw Failure.processing("libvips could not start") }
        self.limits = limits
    }

    /// Recognises the format from the bytes and reads the size from the header; refuses
    /// other formats, absurd sizes and files that libvips cannot read.
    public func inspect(fileAt path: String) throws -> Header {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Failure.unreadable("cannot open the file") }
        let prefix = (try? handle.read(upToCount: PhotoFormat.signatureLength)) ?? Data()
        try? handle.close()
        guard let format = PhotoFormat.detect(prefix) else { throw Failure.unsupportedFormat }
        var width: Int32 = 0, height: Int32 = 0, bands: Int32 = 0, sampleBytes: Int32 = 0, orientation: Int32 = 1
        var loader = [CChar](repeating: 0, count: 64)
        let status = groupie_vips_header(path, &width, &height, &bands, &sampleBytes, &orientation, &loader, Int32(loader.count))
        guard status == 0 else { throw Failure.unreadable(Self.lastError()) }
        // The bytes decide the format; a loader of another format must never get the file.
        guard String(decoding: loader.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).hasPrefix(format.loaderPrefix) else { throw Failure.unsupportedFormat }
        let header = Header(
            format: format, width: Int(width), height: Int(height), bands: max(1, Int(bands)), sampleBytes: max(1, Int(sampleBytes)),
            orientation: (1...8).contains(orientation) ? Int(orientation) : 1
        )
        guard header.width * header.height <= limits.maxPixels else { throw Failure.tooLarge(width: header.width, height: header.height) }
        guard header.decodedBytes <= limits.maxDecodedBytes else { throw Failure.tooManyDecodedBytes(header.decodedBytes) }
        guard min(header.width, header.height) >= limits.minEdge else { throw Failure.tooSmall(width: header.width, height: header.height) }
        return header
    }

    /// Refuses a visitor's new photo whose long side is over `maxAspectRatio` times its short
    /// one. Only uploads are held to it: photos stored before, staff's pictures and the command
    /// line's collages are not.
    public func requirePhotoShape(_ header: Header) throws {
        guard max(header.width, header.height) <= min(header.width, header.height) * limits.maxAspectRatio else {
            throw Failure.tooNarrow(width: header.width, height: header.height)
        }
    }

    /// Writes the derivative of the photo at `input` to `output` (a JPEG).
    public func makeDerivative(_ derivative: Derivative, of input: String, to output: String) throws {
        guard groupie_vips_derivative(input, output, Int32(derivative.longEdge), Int32(derivative.quality)) == 0 else {
            throw Failure.processing(Self.lastError())
        }
    }

    /// Where the photo's subject is (libvips' attention measure on a small copy), for collages
    /// to crop around; read from any size of the photo, e.g. its `thumb`.
    public func focus(of path: String) throws -> Focus {
        var x = 0.5, y = 0.5
        guard groupie_vips_focus(path, &x, &y) == 0 else { throw Failure.processing(Self.lastError()) }
        return Focus(x: x, y: y)
    }

    /// The whole photo as a JPEG without metadata, oriented.
    public func transcode(_ input: String, to output: String) throws {
        guard groupie_vips_transcode(input, output, 92) == 0 else { throw Failure.processing(Self.lastError()) }
    }

    private static let errorLock = Mutex(())

    static func lastError() -> String {
        errorLock.withLock { _ in
            let message = String(cString: groupie_vips_error()).trimmingCharacters(in: .whitespacesAndNewlines)
            groupie_vips_error_clear()
            return message.isEmpty ? "libvips failed" : String(message.prefix(300))
        }
    }
}
