/// The batch stage's queue: items in arrival order, held in chunks of one export batch each, so that the
/// worker and the callers that help it take whole batches off the front without copying items (a slice of one
/// array copied into a batch retained and released every field of every item).
///
/// Every chunk but the last holds exactly ``batchSize`` items.
///
/// A batch's array, once exported and emptied, comes back (``recycle(_:)``) and holds new items: a new chunk
/// for every batch was allocated by the application's thread and freed by the worker's, about 160 KB each
/// (512 spans), which glibc's allocator took from and gave back to the system again and again (page faults,
/// and its arena lock taken by both threads).
struct OTLPBatchQueue<Item> {
    /// The chunks, oldest first.
    private var chunks: [[Item]] = []
    /// Emptied chunks with their storage, used before a new one is allocated: at most ``maxSpareChunks``.
    private var spareChunks: [[Item]] = []
    /// Items queued, in all chunks.
    private(set) var count = 0
    /// Items per chunk: the stage's largest export batch.
    let batchSize: Int

    /// Emptied chunks kept for reuse: the batch being exported and the one being filled.
    static var maxSpareChunks: Int { 2 }

    /// The capacity a chunk is allocated with: a batch, up to 4,096 items (a larger batch grows as it fills).
    private var chunkCapacity: Int { min(batchSize, 1 << 12) }

    /// An empty queue whose chunks hold `batchSize` items.
    init(batchSize: Int) {
        self.batchSize = max(1, batchSize)
    }

    var isEmpty: Bool { count == 0 }

    /// Adds `item` at the end.
    mutating func append(_ item: consuming Item) {
        if chunks.isEmpty || chunks[chunks.count &- 1].count >= batchSize {
            if spareChunks.isEmpty {
                var chunk: [Item] = []
                chunk.reserveCapacity(chunkCapacity)
                chunks.append(chunk)
            } else {
                chunks.append(spareChunks.removeLast())
            }
        }
        chunks[chunks.count &- 1].append(item)
        count &+= 1
    }

    /// Takes the oldest `min(batchSize, count)` items off the queue, in one array.
    mutating func takeFirstBatch() -> [Item] {
        guard !chunks.isEmpty else { return [] }
        let batch = chunks.removeFirst()
        count &-= batch.count
        return batch
    }

    /// Takes every item off the queue, as batches of ``batchSize`` items (the last one possibly smaller).
    mutating func takeAll() -> [[Item]] {
        let all = chunks
        chunks = []
        count = 0
        return all
    }

    /// Keeps `chunk`'s storage for new items when it is empty, holds a chunk's capacity and fewer than
    /// ``maxSpareChunks`` are kept; else it is freed. Empty a batch (`removeAll(keepingCapacity: true)`)
    /// before taking the lock to hand it back: that is when its items are freed.
    mutating func recycle(_ chunk: consuming [Item]) {
        guard chunk.isEmpty, chunk.capacity >= chunkCapacity, spareChunks.count < Self.maxSpareChunks else { return }
        spareChunks.append(chunk)
    }

    /// Emptied chunks kept for reuse now (for tests).
    var spareChunkCount: Int { spareChunks.count }

    /// Discards every item, and the spare chunks.
    mutating func removeAll() {
        chunks = []
        spareChunks = []
        count = 0
    }
}
