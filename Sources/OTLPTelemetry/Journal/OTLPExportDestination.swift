import OTLPWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where an exporter that takes spans (the file output, the spool) is about to write a batch holding journaled
/// spans: the journal's write-ahead intent (its `exporting` record), written before the exporter's write. At the
/// next start, a span whose intent has no `exported` record after it is looked up there: found (the bytes at
/// the offset are the bytes written, by their CRC-32), it got there before the kill and is not exported again.
package struct OTLPExportDestination: Sendable, Equatable {
    /// Which output.
    package enum Kind: String, Sendable {
        /// A file output: the file is found by its device and inode (it may have been rotated, renamed).
        case file
        /// A spool: the record is found by the spool file's number and offset (or the spool's checkpoint
        /// says it was sent).
        case spool
    }

    package var kind: Kind
    /// The file output's path when it was written, or the spool's directory (of the signal).
    package var path: String
    /// The file's device and inode (file outputs).
    package var device: UInt64 = 0
    package var inode: UInt64 = 0
    /// The spool file's number (spools).
    package var fileNumber: UInt64 = 0
    /// Where the write starts: the file's size before it.
    package var offsetBytes: Int
    /// The bytes written.
    package var lengthBytes: Int
    /// The CRC-32 of the bytes written.
    package var checksum: UInt32

    package init(
        kind: Kind, path: String, device: UInt64 = 0, inode: UInt64 = 0, fileNumber: UInt64 = 0, offsetBytes: Int, lengthBytes: Int,
        checksum: UInt32
    ) {
        self.kind = kind
        self.path = path
        self.device = device
        self.inode = inode
        self.fileNumber = fileNumber
        self.offsetBytes = offsetBytes
        self.lengthBytes = lengthBytes
        self.checksum = checksum
    }

    /// Whether the file at `path` holds, at ``offsetBytes``, the ``lengthBytes`` bytes whose CRC-32 is
    /// ``checksum`` (`false` when it is shorter, unreadable or not a regular file).
    package func isWritten(inFileAt path: String) -> Bool {
        guard offsetBytes >= 0, lengthBytes > 0, lengthBytes <= 1 << 30 else { return false }
        guard let (descriptor, _) = try? OTLPSystemCall.openRegularFile(path, flags: O_RDONLY, "cannot open \(path)") else { return false }
        defer { closeDescriptor(descriptor) }
        var crc: UInt32 = 0
        var buffer = [UInt8](repeating: 0, count: min(lengthBytes, 1 << 20))
        var done = 0
        while done < lengthBytes {
            let want = min(buffer.count, lengthBytes - done)
            let read = buffer.withUnsafeMutableBytes { raw in
                try? OTLPSystemCall.check("cannot read \(path)") { pread(descriptor, raw.baseAddress!, want, off_t(offsetBytes + done)) }
            }
            guard let count = read, count > 0 else { return false }
            crc = buffer.withUnsafeBytes { OTLPCRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[..<count]), continuing: crc) }
            done += count
        }
        return crc == checksum
    }

    /// For a file output: whether the batch is in the file it went to, wherever that file is now (the path, or
    /// a rotated name beside it: `STEM.N.EXT`), found by device and inode. A file that is gone, truncated or
    /// rewritten since does not hold it.
    package func isInFileOutput() -> Bool {
        guard kind == .file else { return false }
        let names = OTLPRotatedFileName(path: path)
        guard let found = try? OTLPSystemCall.names(inDirectory: names.directory.isEmpty ? "." : names.directory) else { return false }
        let base = String(path[(path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex)...])
        for name in found where name == base || names.index(ofName: name) != nil {
            let candidate = names.directory + name
            guard let status = try? OTLPFileStatus.of(path: candidate), status.isRegularFile, status.device == device,
                status.inode == inode
            else { continue }
            return isWritten(inFileAt: candidate)
        }
        return false
    }
}

/// An exporter that can tell whether a write it announced (an ``OTLPExportDestination`` of its kind) got
/// there: the spool, which knows its files and what it sent.
package protocol OTLPExportDestinationChecking: Sendable {
    /// `true` when the write got there (it may have been sent since), `false` when it did not, `nil` when the
    /// destination is not this exporter's.
    func holds(_ destination: OTLPExportDestination) -> Bool?
}

/// An exporter that tells the span journal itself where it writes journaled spans and when it wrote them (the
/// file output's stream exporter): export stages leave the acknowledgement to it.
package protocol OTLPSpanJournalAcknowledging {}

/// An exporter that is a durable destination of journaled spans, and of which kind: recovered spans that such a
/// destination holds already are not exported to it again.
package protocol OTLPSpanJournalDestination {
    /// The kind of destination it is; `nil` when it is none (standard output).
    var journalDestinationKind: OTLPExportDestination.Kind? { get }
}
