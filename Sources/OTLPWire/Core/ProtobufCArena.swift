internal import COTLPProto
internal import COTLPShims
internal import CProtobufC

/// Bump allocator that owns every C struct, pointer array and string copy made for one encode, or every
/// struct protobuf-c unpacks for one decode.
///
/// One arena belongs to one ``OTLPEncoder``. ``reset()`` releases everything at once between batches and
/// keeps the largest chunk, so a steady stream of similar batches allocates nothing after warm-up.
final class ProtobufCArena {
    private struct Chunk {
        let base: UnsafeMutableRawPointer
        let size: Int
    }

    private var chunks: [Chunk] = []
    private var cursor: UnsafeMutableRawPointer?
    private var remaining = 0
    private let minimumChunkSize: Int
    /// Bytes handed out from chunks before the current one (the last) since the last ``reset()``.
    private var retiredBytesInUse = 0

    /// Bytes handed out since the last ``reset()`` (what the decoder's pre-scan estimates ahead of unpack).
    /// Derived from the chunks, so allocation itself does no bookkeeping for it.
    var bytesInUse: Int { retiredBytesInUse + ((chunks.last?.size ?? 0) - remaining) }

    init(minimumChunkSize: Int = 256 * 1024) {
        self.minimumChunkSize = minimumChunkSize
    }

    deinit {
        for chunk in chunks { chunk.base.deallocate() }
    }

    /// `byteCount` bytes aligned to 8, valid until the next ``reset()``.
    @inline(__always)
    func allocate(byteCount: Int) -> UnsafeMutableRawPointer {
        let rounded = (byteCount + 7) & ~7
        if rounded > remaining { grow(atLeast: rounded) }
        let pointer = cursor.unsafelyUnwrapped
        cursor = pointer + rounded
        remaining -= rounded
        return pointer
    }

    @inline(__always)
    func allocate<T>(_: T.Type, count: Int = 1) -> UnsafeMutablePointer<T> {
        allocate(byteCount: MemoryLayout<T>.stride * count).bindMemory(to: T.self, capacity: count)
    }

    /// The rest of the current chunk (or a new chunk, when less than `byteCount` bytes are left), handed out
    /// whole: a ``ProtobufCBuilder`` allocates from it by itself, with no call per allocation.
    func block(atLeast byteCount: Int) -> UnsafeMutableRawBufferPointer {
        if byteCount > remaining { grow(atLeast: byteCount) }
        let block = UnsafeMutableRawBufferPointer(start: cursor, count: remaining)
        cursor = cursor.unsafelyUnwrapped + remaining
        remaining = 0
        return block
    }

    /// Releases everything allocated; keeps the largest chunk for the next batch.
    func reset() {
        retiredBytesInUse = 0
        guard chunks.count > 0 else { return }
        if chunks.count > 1 {
            let keep = chunks.max { $0.size < $1.size }!
            for chunk in chunks where chunk.base != keep.base { chunk.base.deallocate() }
            chunks = [keep]
        }
        cursor = chunks[0].base
        remaining = chunks[0].size
    }

    private func grow(atLeast byteCount: Int) {
        let last = chunks.last?.size ?? 0
        retiredBytesInUse += last - remaining  // the rest of the last chunk is left unused
        let size = max(byteCount, minimumChunkSize, last * 2)
        let base = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        chunks.append(Chunk(base: base, size: size))
        cursor = base
        remaining = size
    }

    /// Runs `body` with a protobuf-c allocator that takes memory from this arena; its `free` does nothing
    /// (everything goes at the next ``reset()``). The allocator is C (`COTLPShims_bump_alloc`), bumping
    /// through this arena's current chunk, and calls back here only for a new chunk.
    func withAllocator<R>(_ body: (UnsafeMutablePointer<ProtobufCAllocator>) throws(OTLPReadError) -> R) throws(OTLPReadError) -> R {
        var bump = COTLPShims_Bump(
            cursor: cursor?.assumingMemoryBound(to: UInt8.self), remaining: remaining,
            refill: { bump, size in
                let bump = bump.unsafelyUnwrapped
                let arena = Unmanaged<ProtobufCArena>.fromOpaque(bump.pointee.owner).takeUnretainedValue()
                arena.cursor = UnsafeMutableRawPointer(bump.pointee.cursor)
                arena.remaining = bump.pointee.remaining
                let pointer = arena.allocate(byteCount: size)
                bump.pointee.cursor = arena.cursor?.assumingMemoryBound(to: UInt8.self)
                bump.pointee.remaining = arena.remaining
                return pointer
            },
            owner: Unmanaged.passUnretained(self).toOpaque())
        defer {
            cursor = UnsafeMutableRawPointer(bump.cursor)
            remaining = bump.remaining
        }
        return try withUnsafeMutablePointer(to: &bump) { (bumpPointer) throws(OTLPReadError) -> R in
            var allocator = ProtobufCAllocator(
                alloc: COTLPShims_bump_alloc, free: COTLPShims_bump_free, allocator_data: UnsafeMutableRawPointer(bumpPointer))
            return try withExtendedLifetime(self) { () throws(OTLPReadError) -> R in try body(&allocator) }
        }
    }

    /// The most bytes ``withAllocator(limitBytes:_:)``'s allocator hands out before it refuses.
    private var allocationLimit = Int.max
    /// Whether that allocator refused an allocation (protobuf-c's unpack then fails and returns NULL).
    private(set) var refusedAllocation = false

    /// ``withAllocator(_:)``, except that the allocator returns NULL (which makes protobuf-c's unpack fail
    /// cleanly) once ``bytesInUse`` would pass `limitBytes`; ``refusedAllocation`` then tells the failure
    /// apart from malformed input. For input whose unpacked size the pre-scan does not bound.
    func withAllocator<R>(
        limitBytes: Int, _ body: (UnsafeMutablePointer<ProtobufCAllocator>) throws(OTLPReadError) -> R
    ) throws(OTLPReadError) -> R {
        allocationLimit = limitBytes
        refusedAllocation = false
        defer { allocationLimit = .max }
        var allocator = ProtobufCAllocator(
            alloc: { data, size in
                let arena = Unmanaged<ProtobufCArena>.fromOpaque(data!).takeUnretainedValue()
                let (total, overflow) = arena.bytesInUse.addingReportingOverflow(max(size, 1))
                guard !overflow, total <= arena.allocationLimit else {
                    arena.refusedAllocation = true
                    return nil
                }
                return arena.allocate(byteCount: max(size, 1))
            },
            free: { _, _ in },
            allocator_data: Unmanaged.passUnretained(self).toOpaque())
        return try withExtendedLifetime(self) { () throws(OTLPReadError) -> R in try body(&allocator) }
    }
}
