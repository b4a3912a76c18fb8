import Foundation

/// The index of the uploads in progress, `uploads/.index.json` (blocking).
extension PartialUploads {
    /// The index, or, where there is none yet (the first start after an upgrade), the uploads on
    /// disk as their states say.
    static func readIndex(root: String) -> Index {
        if let data = FileManager.default.contents(atPath: root + "/.index.json"), let index = try? JSONDecoder().decode(Index.self, from: data) {
            return index
        }
        var index: Index = [:]
        for group in groups(in: root) {
            for upload in uploads(in: group) {
                index[(group as NSString).lastPathComponent + "/" + (upload as NSString).lastPathComponent] = entry(of: upload)
            }
        }
        return index
    }

    static func writeIndex(_ index: Index, root: String) throws {
        try replace(root + "/.index.json", with: try JSONEncoder().encode(index))
    }

    /// Lists the uploads on disk that the index does not (left by an earlier Groupie, or by an
    /// instance that stopped between the two), and strikes off entries whose folders went: at
    /// start, waiting for the folder's lock as starting may.
    static func reconcile(root: String) throws {
        let descriptor = open(root + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        let listed = readIndex(root: root)
        var index = listed.filter { FileManager.default.fileExists(atPath: root + "/" + $0.key) }
        for group in groups(in: root) {
            for upload in uploads(in: group) {
                let relative = (group as NSString).lastPathComponent + "/" + (upload as NSString).lastPathComponent
                guard index[relative] == nil else { continue }
                index[relative] = entry(of: upload)
            }
        }
        if index != listed { try writeIndex(index, root: root) }
    }

    /// The entry of an upload's folder as its state says (its name holds its player's part).
    static func entry(of upload: String) -> Entry {
        let state = readState(upload)
        return Entry(
            player: String((upload as NSString).lastPathComponent.prefix { $0 != "-" }), address: state?.address, total: state?.total ?? 0,
            startedAt: state?.updatedAt ?? 0
        )
    }
}
