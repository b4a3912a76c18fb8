import CZlib
import Foundation

/// CRC-32 as PNG chunks and ZIP entries carry it, computed by zlib.
public enum CRC32 {
    public static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        bytes.withContiguousStorageIfAvailable(checksum(buffer:)) ?? Array(bytes).withUnsafeBufferPointer(checksum(buffer:))
    }

    /// `crc` (0 to begin) carried on over `bytes`: a file's checksum, a chunk at a time.
    public static func update(_ crc: UInt32, with bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else { return crc }
        var value = uLong(crc)
        var offset = 0
        while offset < bytes.count {
            let count = min(1 << 30, bytes.count - offset)
            value = crc32(value, base + offset, uInt(count))
            offset += count
        }
        return UInt32(value)
    }

    public static func checksum(_ data: Data) -> UInt32 {
        data.withUnsafeBytes { checksum(buffer: $0.bindMemory(to: UInt8.self)) }
    }

    private static func checksum(buffer: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var crc = crc32(0, nil, 0)
        var offset = 0
        // zlib counts in 32 bits.
        while offset < buffer.count, let base = buffer.baseAddress {
            let count = min(1 << 30, buffer.count - offset)
            crc = crc32(crc, base + offset, uInt(count))
            offset += count
        }
        return UInt32(crc)
    }
}
