import Testing
@testable import OTLPTelemetry

@Suite("OTLPBatchQueue")
struct OTLPBatchQueueTests {
    @Test("Items come out in arrival order, in batches of the batch size, the last one smaller")
    func takeAll() {
        var queue = OTLPBatchQueue<Int>(batchSize: 4)
        #expect(queue.isEmpty && queue.takeAll().isEmpty)
        for item in 0..<10 { queue.append(item) }
        #expect(queue.count == 10)
        #expect(queue.takeAll() == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]])
        #expect(queue.isEmpty && queue.count == 0)
        queue.append(10)
        #expect(queue.takeAll() == [[10]])
    }

    @Test("The first batch is the oldest items, at most the batch size; the rest stay queued in order")
    func takeFirstBatch() {
        var queue = OTLPBatchQueue<Int>(batchSize: 3)
        #expect(queue.takeFirstBatch().isEmpty)
        for item in 0..<7 { queue.append(item) }
        #expect(queue.takeFirstBatch() == [0, 1, 2])
        #expect(queue.count == 4)
        queue.append(7)
        #expect(queue.takeFirstBatch() == [3, 4, 5])
        #expect(queue.takeFirstBatch() == [6, 7])
        #expect(queue.isEmpty)
    }

    @Test("removeAll empties the queue; a batch size below 1 is taken as 1")
    func removeAllAndSmallBatches() {
        var queue = OTLPBatchQueue<Int>(batchSize: 0)
        queue.append(1)
        queue.append(2)
        #expect(queue.takeFirstBatch() == [1])
        queue.removeAll()
        #expect(queue.isEmpty && queue.takeAll().isEmpty)
    }
}

extension OTLPBatchQueueTests {
    @Test("an exported batch's emptied array holds the next items; full, small or surplus arrays are not kept")
    func recycledChunks() {
        var queue = OTLPBatchQueue<Int>(batchSize: 4)
        for item in 0..<8 { queue.append(item) }
        var first = queue.takeFirstBatch()
        let storage = first.withUnsafeBufferPointer { $0.baseAddress }
        queue.recycle(first)  // still holds items: not kept
        #expect(queue.spareChunkCount == 0)
        first.removeAll(keepingCapacity: true)
        queue.recycle(consume first)
        queue.recycle([])  // no capacity: not kept
        #expect(queue.spareChunkCount == 1)
        _ = queue.takeFirstBatch()
        for item in 8..<10 { queue.append(item) }  // a new chunk: the recycled one
        #expect(queue.spareChunkCount == 0)
        var next = queue.takeFirstBatch()
        #expect(next == [8, 9])
        #expect(next.withUnsafeBufferPointer { $0.baseAddress } == storage)
        for _ in 0..<3 {
            next.removeAll(keepingCapacity: true)
            queue.recycle(next)
            next.reserveCapacity(4)
        }
        #expect(queue.spareChunkCount == OTLPBatchQueue<Int>.maxSpareChunks)
    }
}
