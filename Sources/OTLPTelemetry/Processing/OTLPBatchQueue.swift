/// The batch stage's queue: items in arrival order, held in chunks of one export batch each, so that the
/// worker and the callers that help it take whole batches off the front without copying items (a slice of one
/// array copied into a batch retained and released every field of every item).
///
/// Every chunk but the last holds exactly ``batchSize`` items.
struct OTLPBatchQueue<Item> {
    /// The chunks, oldest first.
    private var chunks: [[Item]] = []
    /// Items queued, in all chunks.
    private(set) var count = 0
    /// Items per chunk: the stage's largest export batch.
    let batchSize: Int

    /// An empty queue whose chunks hold `batchSize` items.
    init(batchSize: Int) {
        self.batchSize = max(1, batchSize)
    }

    var isEmpty: Bool { count == 0 }

    /// Adds `item` at the end.
    mutating func append(_ item: consuming Item) {
        if chunks.isEmpty || chunks[chunks.count &- 1].count >= batchSize {
            var chunk: [Item] = []
            chunk.reserveCapacity(min(batchSize, 1 << 12))
            chunks.append(chunk)
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

    /// Discards every item.
    mutating func removeAll() {
        chunks = []
        count = 0
    }
}
