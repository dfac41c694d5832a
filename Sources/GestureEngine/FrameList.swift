/// A list that one frame fills and the next empties: an array's storage that only grows, and a
/// count. Emptying it is one store, where an array's `removeAll(keepingCapacity: true)` goes
/// through the general `replaceSubrange` (80–170 instructions even for one element) and
/// popping checks the storage's uniqueness once per element. Elements past `count` stay in the
/// storage until they are overwritten, so it is for plain values (nothing to release).
@frozen
public struct FrameList<Element>: RandomAccessCollection {
    @usableFromInline var storage: [Element] = []
    @usableFromInline var used = 0

    @inlinable public init() {}

    @inlinable public init(capacity: Int) { storage.reserveCapacity(capacity) }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { used }
    @inlinable public var count: Int { used }
    @inlinable public var isEmpty: Bool { used == 0 }

    /// Index `i` below `count` (the storage's own check keeps every access in bounds; this one
    /// keeps reads off the elements a previous frame left).
    @inlinable public subscript(i: Int) -> Element {
        get {
            precondition(i < used, "FrameList index out of range")
            return storage[i]
        }
        set {
            precondition(i < used, "FrameList index out of range")
            storage[i] = newValue
        }
    }

    @inlinable @inline(__always) public mutating func append(_ e: Element) {
        if used < storage.count { storage[used] = e } else { storage.append(e) }
        used += 1
    }

    @inlinable public mutating func removeAll() { used = 0 }

    /// Refills the list where it lies: `body` writes elements from the start of a span of
    /// `capacity` (grown to it with `filler` if smaller) and returns how many it wrote; they are
    /// the list. One uniqueness check of the storage, whatever the count (a value shared with a
    /// copy is copied first, as any write to an array is).
    @inlinable public mutating func refill(
        capacity: Int, filler: Element, _ body: (inout MutableSpan<Element>) -> Int
    ) {
        if storage.count < capacity { storage += repeatElement(filler, count: capacity - storage.count) }
        // The whole storage (at least `capacity`): the count returned is checked against it.
        var span = storage.mutableSpan
        let n = body(&span)
        precondition(n >= 0 && n <= capacity, "FrameList refilled past its capacity")
        used = n
    }

    /// Refills the list from outside a closure: its storage (at least `capacity`, grown with
    /// `filler`) is swapped with `outside` (an empty array: no copy), written there through its
    /// span, and swapped back by `endRefill` with the count written. Between the two the list is
    /// empty and has no storage: nothing else may touch it.
    @inlinable public mutating func beginRefill(capacity: Int, filler: Element, into outside: inout [Element]) {
        precondition(outside.isEmpty, "FrameList.beginRefill lends its storage to an empty array")
        if storage.count < capacity { storage += repeatElement(filler, count: capacity - storage.count) }
        swap(&storage, &outside)
        used = 0
    }

    /// The storage `beginRefill` lent back, its first `count` elements the list.
    @inlinable public mutating func endRefill(_ outside: inout [Element], count: Int) {
        precondition(storage.isEmpty, "FrameList.endRefill without its beginRefill")
        swap(&storage, &outside)
        precondition(count >= 0 && count <= storage.count, "FrameList refilled past its capacity")
        used = count
    }

    /// The list's elements as a span, read where they lie.
    @inlinable public func withSpan<R>(_ body: (Span<Element>) throws -> R) rethrows -> R {
        try body(storage.span.extracting(0..<used))
    }
}

extension FrameList: ExpressibleByArrayLiteral {
    @inlinable public init(_ elements: [Element]) {
        storage = elements
        used = elements.count
    }

    @inlinable public init(arrayLiteral elements: Element...) { self.init(elements) }
}

extension FrameList: Sendable where Element: Sendable {}
