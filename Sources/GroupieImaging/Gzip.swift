import CZlib
import Foundation

/// gzip (RFC 1952), as zlib writes it: what the web client's files are sent as to a browser
/// that accepts it.
public enum Gzip {
    /// `bytes` compressed at zlib's best level, in gzip's wrapping; nil when zlib fails.
    public static func compress(_ bytes: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        // Window bits 15 + 16: a gzip header and trailer around the deflate stream.
        guard deflateInit2_(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 32)
        var input = bytes
        let status = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        return Array(output.prefix(Int(stream.total_out)))
    }
}
