internal import OTLPWire

/// Sorts attributes by key in `String` order (`<`), comparing most keys by a word instead of by a call into
/// the standard library's string comparison (which cost as much as converting the attributes did).
///
/// A key that is all ASCII is NFC and compares as its UTF-8 bytes, so two such keys whose first 8 bytes
/// differ are ordered by those bytes read as one big-endian word (zero-padded: a key shorter than 8 bytes
/// that is a prefix of the other ties, and ties fall back to `<`). Keys with other scalars always compare
/// with `<`, as normalization may reorder them.
enum OTLPAttributeKeyOrder {
    /// Sorts `attributes` by key as `sort { $0.key < $1.key }` does (the keys of one span are distinct; equal
    /// keys keep their order).
    static func sort(_ attributes: inout [OTLPAttribute]) {
        let count = attributes.count
        guard count > 1 else { return }
        guard count <= maxWordSortedCount else {
            attributes.sort { $0.key < $1.key }
            return
        }
        // An insertion sort of (ordering word, index) pairs; then the attributes are moved into that order once
        // (moved, not copied: `swapAt` copies, retaining and releasing both values).
        var words:
            (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var indices: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { wordBytes in
            withUnsafeMutableBytes(of: &indices) { indexBytes in
                // By sorted position: the ordering word and the index of the attribute there.
                let word = wordBytes.bindMemory(to: UInt64.self)
                let order = indexBytes.bindMemory(to: UInt8.self)
                var moved = false
                for index in 0..<count {
                    let key = orderingWord(of: attributes[index].key)
                    var position = index
                    while position > 0 {
                        let previous = word[position &- 1]
                        let before = wordOrder(key, previous) ?? (attributes[index].key < attributes[Int(order[position &- 1])].key)
                        guard before else { break }
                        word[position] = previous
                        order[position] = order[position &- 1]
                        position &-= 1
                    }
                    word[position] = key
                    order[position] = UInt8(truncatingIfNeeded: index)
                    if position != index { moved = true }
                }
                guard moved else { return }
                attributes.withUnsafeMutableBufferPointer { buffer in
                    withUnsafeTemporaryAllocation(of: OTLPAttribute.self, capacity: count) { temporary in
                        let base = buffer.baseAddress!
                        let held = temporary.baseAddress!
                        held.moveInitialize(from: base, count: count)
                        for position in 0..<count { (base + position).moveInitialize(from: held + Int(order[position]), count: 1) }
                    }
                }
            }
        }
    }

    /// Most attributes sorted by ordering words (on the stack); more are sorted with `<` alone.
    static let maxWordSortedCount = 16

    /// The word no all-ASCII key's ordering word equals: marks keys that compare with `<` only.
    private static let unordered = UInt64.max

    /// `key`'s ordering word (``orderingWord(_:)``, or ``unordered`` for a key without contiguous UTF-8).
    @inline(__always)
    static func orderingWord(of key: String) -> UInt64 {
        key.utf8.withContiguousStorageIfAvailable(orderingWord) ?? unordered
    }

    /// Whether a key of ordering word `word` sorts before one of `otherWord` (as `key < other` does) when the
    /// words decide it: they differ and both keys are all ASCII; `nil` when the keys must be compared with `<`.
    @inline(__always)
    static func wordOrder(_ word: UInt64, _ otherWord: UInt64) -> Bool? {
        word != otherWord && word != unordered && otherWord != unordered ? word < otherWord : nil
    }

    /// The first 8 UTF-8 bytes of an all-ASCII key as a big-endian word (zero-padded); ``unordered`` when a byte
    /// is not ASCII.
    @inline(__always)
    static func orderingWord(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base)
        // Whether every byte is ASCII: their high bits, a word at a time.
        var highBits: UInt64 = 0
        var offset = 0
        while offset &+ 8 <= count {
            highBits |= raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset &+= 8
        }
        while offset < count {
            highBits |= UInt64(base[offset])
            offset &+= 1
        }
        guard highBits & 0x8080_8080_8080_8080 == 0 else { return unordered }
        if count >= 8 { return UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self)) }
        var word: UInt64 = 0
        for index in 0..<count { word |= UInt64(base[index]) << (56 &- 8 &* UInt64(index)) }
        return word
    }
}
