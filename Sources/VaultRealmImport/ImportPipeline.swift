import Foundation
import RealmFileReader
@_spi(Interchange) import VaultKit

/// One object ready to be written: its class in the vault, its row id, its values.
struct PreparedObject: Sendable {
    let className: String
    let fileClassName: String
    /// The object's key in the Realm file, which error messages name it by.
    let objectKey: Int64
    let rowID: Int64
    let values: [InterchangeValue]
}

/// Reading and writing on two threads: a producer thread reads the Realm file and
/// converts its objects (RealmFileReader and ValueConversion), the calling thread —
/// which owns the vault's connection — writes them. They meet in a queue of batches
/// bounded to 2,048 objects, so memory stays flat however large the file;
/// the file's decoding then costs no time of the writer's, which SQLite bounds.
/// An error on either side stops both and is thrown on the calling thread.
final class ImportPipeline: @unchecked Sendable {
    private let condition = NSCondition()
    private var batches: [[PreparedObject]] = []
    private var finished = false
    private var producerError: (any Error)?
    private var cancelled = false
    private static let batchSize = 256
    private static let maximumBatches = 8

    /// Runs `produce` on a new thread, feeding `consume` on this one, batch by batch.
    static func run(produce: @escaping @Sendable (_ emit: (PreparedObject) throws -> Void) throws -> Void,
                    consume: ([PreparedObject]) throws -> Void) throws {
        let pipeline = ImportPipeline()
        let thread = Thread {
            var batch: [PreparedObject] = []
            batch.reserveCapacity(batchSize)
            do {
                try produce { object in
                    batch.append(object)
                    if batch.count == batchSize {
                        try pipeline.push(batch)
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                if !batch.isEmpty { try pipeline.push(batch) }
                pipeline.finish(error: nil)
            } catch {
                pipeline.finish(error: error)
            }
        }
        thread.stackSize = 1 << 22
        thread.start()
        do {
            while let batch = try pipeline.pop() { try consume(batch) }
        } catch {
            pipeline.cancel()
            throw error
        }
    }

    private struct Cancelled: Error {}

    private func push(_ batch: [PreparedObject]) throws {
        condition.lock()
        defer { condition.unlock() }
        while batches.count >= Self.maximumBatches && !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        batches.append(batch)
        condition.broadcast()
    }

    private func finish(error: (any Error)?) {
        condition.lock()
        if !(error is Cancelled) { producerError = error }
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch; nil when the producer is done; throws the producer's error.
    private func pop() throws -> [PreparedObject]? {
        condition.lock()
        defer { condition.unlock() }
        while batches.isEmpty && !finished { condition.wait() }
        if let producerError { throw producerError }
        if batches.isEmpty { return nil }
        let batch = batches.removeFirst()
        condition.broadcast()
        return batch
    }

    /// Stops the producer (the writer failed) and waits until it has stopped.
    private func cancel() {
        condition.lock()
        cancelled = true
        batches.removeAll()
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }
}
