import Testing

@testable import Daemon

/// A client's output queue: what goes in comes out in order, whatever was written in between.
@Suite struct ByteQueueTests {
    static func bytes(_ q: ByteQueue) -> [UInt8] { q.withQueuedBytes { Array($0) } }

    @Test func appended_partlyWritten_appendedAgain_keepsOrder() {
        var q = ByteQueue()
        let a = [UInt8](repeating: 1, count: 3000) + [2, 3]
        a.withUnsafeBufferPointer { q.append($0) }
        #expect(q.count == 3002)
        q.consume(2000)  // most of it written: the next append moves the rest to the front
        #expect(Self.bytes(q) == Array(a[2000...]))
        let b: [UInt8] = Array(0..<200)
        b.withUnsafeBufferPointer { q.append($0) }
        #expect(Self.bytes(q) == Array(a[2000...]) + b)
        // Past the storage it had: it grows, and nothing is lost.
        let c = [UInt8](repeating: 9, count: 10_000)
        c.withUnsafeBufferPointer { q.append($0) }
        #expect(Self.bytes(q) == Array(a[2000...]) + b + c)
        #expect(q.count == 1002 + 200 + 10_000)
    }

    @Test func emptied_startsOver_andGivesBackLargeStorage() {
        var q = ByteQueue()
        let a = [UInt8](repeating: 5, count: 100)
        a.withUnsafeBufferPointer { q.append($0) }
        q.consume(100)
        q.removeAll(keepingUpTo: 8192)
        #expect(q.count == 0)
        let b: [UInt8] = [7, 8, 9]
        b.withUnsafeBufferPointer { q.append($0) }
        #expect(Self.bytes(q) == b)
        q.removeAll(keepingUpTo: 0)  // a limit under its storage: the storage goes
        #expect(q.count == 0)
        b.withUnsafeBufferPointer { q.append($0) }
        #expect(Self.bytes(q) == b)
        // Nothing to add changes nothing.
        [UInt8]().withUnsafeBufferPointer { q.append($0) }
        #expect(Self.bytes(q) == b)
    }
}
