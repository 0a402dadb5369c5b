import OTLPWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which file a `send --checkpoint` count belongs to: the device and inode it had, and a fingerprint of
/// its first bytes (FNV-1a 64 of the first ``fingerprintBytes``, all of them up to 4,096), taken when the
/// file was opened for sending.
///
/// A file moved away and another put at its path (rotation by renaming) has another inode; a file truncated
/// and written again in place (`copytruncate`) keeps its inode but not its first bytes. A file that only grew
/// keeps both: its first ``fingerprintBytes`` bytes are still those fingerprinted. Device numbers can change
/// across a reboot on some file systems (btrfs subvolumes, NFS): the file then counts as another one and is
/// sent again from its start, never skipped.
struct SendInputIdentity: Equatable {
    /// The file's device (`st_dev`).
    var device: UInt64
    /// The file's inode (`st_ino`).
    var inode: UInt64
    /// How many of the file's first bytes ``fingerprint`` covers: its size when it was smaller than
    /// ``maxFingerprintBytes``.
    var fingerprintBytes: Int
    /// FNV-1a 64 of the file's first ``fingerprintBytes`` bytes.
    var fingerprint: UInt64

    /// Most bytes fingerprinted.
    static let maxFingerprintBytes = 4096

    /// The identity of a file on `device` at `inode` whose first bytes are `head` (at most
    /// ``maxFingerprintBytes`` of them are fingerprinted).
    init(device: UInt64, inode: UInt64, head: ArraySlice<UInt8>) {
        self.device = device
        self.inode = inode
        let covered = head.prefix(Self.maxFingerprintBytes)
        fingerprintBytes = covered.count
        fingerprint = Self.fnv1a64(covered)
    }

    /// An identity as a checkpoint line holds it.
    init(device: UInt64, inode: UInt64, fingerprintBytes: Int, fingerprint: UInt64) {
        self.device = device
        self.inode = inode
        self.fingerprintBytes = fingerprintBytes
        self.fingerprint = fingerprint
    }

    /// The regular file open at `descriptor` (named `path` in errors): its identity and its first bytes (up
    /// to ``maxFingerprintBytes``), read with `pread`, so the descriptor's read position does not move; `nil`
    /// for anything else (standard input, a FIFO, a device), which has no first bytes to read twice.
    static func of(descriptor: Int32, path: String) throws(OTLPWriteError) -> (identity: SendInputIdentity, head: [UInt8])? {
        let status = try OTLPFileStatus.of(descriptor: descriptor, path: path)
        guard status.isRegularFile else { return nil }
        var head = [UInt8](repeating: 0, count: maxFingerprintBytes)
        var filled = 0
        while filled < head.count {
            let count = try head.withUnsafeMutableBytes { raw in
                Result { () throws(OTLPWriteError) in
                    try OTLPSystemCall.check("cannot read \(path)") {
                        pread(descriptor, raw.baseAddress! + filled, raw.count - filled, off_t(filled))
                    }
                }
            }.get()
            if count == 0 { break }
            filled += count
        }
        head.removeSubrange(filled...)
        return (SendInputIdentity(device: status.device, inode: status.inode, head: head[...]), head)
    }

    /// Why the file on `device` at `inode` whose first bytes are `head` is not the one this identity was
    /// taken of, in words; `nil` when it is that file, maybe grown since (same device and inode, and its
    /// first ``fingerprintBytes`` bytes fingerprint the same).
    func difference(device: UInt64, inode: UInt64, head: [UInt8]) -> String? {
        if device != self.device || inode != self.inode {
            return "it is device \(device) inode \(inode), the checkpoint's file was device \(self.device) inode \(self.inode)"
        }
        if head.count < fingerprintBytes {
            return
                "same inode, but it holds \(head.count) bytes where the checkpoint's file began with \(fingerprintBytes): truncated or rewritten in place"
        }
        if Self.fnv1a64(head.prefix(fingerprintBytes)) != fingerprint {
            return "same inode, but its first \(fingerprintBytes) bytes differ: rewritten in place (copytruncate rotation)"
        }
        return nil
    }

    /// The fields of a checkpoint line: `DEVICE<TAB>INODE<TAB>BYTES<TAB>FNV1A64` (16 hex digits).
    var fields: String {
        let hex = String(fingerprint, radix: 16)
        return "\(device)\t\(inode)\t\(fingerprintBytes)\t\(String(repeating: "0", count: 16 - hex.count))\(hex)"
    }

    /// The identity written as ``fields`` (given one by one), or `nil` when they are not that.
    init?<Text: StringProtocol>(device: Text, inode: Text, fingerprintBytes: Text, fingerprint: Text) {
        guard let device = UInt64(device), let inode = UInt64(inode), let bytes = Int(fingerprintBytes),
            (0...Self.maxFingerprintBytes).contains(bytes), fingerprint.count == 16, let hash = UInt64(fingerprint, radix: 16)
        else { return nil }
        self.init(device: device, inode: inode, fingerprintBytes: bytes, fingerprint: hash)
    }

    /// FNV-1a, 64 bits, of `bytes`.
    static func fnv1a64<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}
