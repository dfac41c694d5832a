import Dispatch
import Testing

/// A suite trait for tests that wait on another process (a daemon they started, a child): each
/// test runs on a thread of its own, not on Swift concurrency's pool. That pool has one thread a
/// CPU, so on CI's two cores two tests blocked in `poll(2)` for a daemon's line stopped every
/// other test: `swift test` took 95 s with its CPUs 40 % busy. At most `width` such tests run at
/// once (each serialized suite runs one at a time anyway), so their daemons do not crowd out the
/// CPUs their deadlines are measured on. A test that must have the machine to itself among them
/// runs `alone`: no other such test beside it.
public struct WaitsOnProcesses: SuiteTrait, TestTrait, TestScoping {
    let alone: Bool
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        if test.isSuite || testCase == nil { return nil }
        // A test of its own `alone` takes the place of its suite's trait (both would wait on each other).
        if !alone && test.traits.contains(where: { ($0 as? WaitsOnProcesses)?.alone == true }) { return nil }
        return self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let gate = ProcessTestGate.shared
        let slots = alone ? gate.width : 1
        await gate.enter(slots)
        do {
            try await withTaskExecutorPreference(ThreadOfItsOwn()) { try await function() }
        } catch {
            await gate.leave(slots)
            throw error
        }
        await gate.leave(slots)
    }
}

extension Trait where Self == WaitsOnProcesses {
    /// The suite's tests wait on processes: each runs on a thread of its own (`WaitsOnProcesses`).
    public static var waitsOnProcesses: Self { WaitsOnProcesses(alone: false) }

    /// The same, with no other such test running beside them.
    public static func waitsOnProcesses(alone: Bool) -> Self { WaitsOnProcesses(alone: alone) }
}

/// How many tests that wait on processes run at once: free slots, and the tests waiting their
/// turn in order of arrival (one that wants every slot holds back those behind it).
actor ProcessTestGate {
    static let shared = ProcessTestGate(width: 10)

    let width: Int
    private var free: Int
    private var waiting: [(slots: Int, turn: CheckedContinuation<Void, Never>)] = []

    init(width: Int) {
        self.width = width
        free = width
    }

    func enter(_ slots: Int) async {
        if waiting.isEmpty && free >= slots {
            free -= slots
            return
        }
        await withCheckedContinuation { waiting.append((slots, $0)) }
    }

    func leave(_ slots: Int) {
        free += slots
        while let next = waiting.first, free >= next.slots {
            waiting.removeFirst()
            free -= next.slots
            next.turn.resume()
        }
    }
}

/// A task executor whose jobs run on a serial dispatch queue of their own: such a queue gets a
/// thread of its own, which a blocking call holds without holding the concurrency pool's.
final class ThreadOfItsOwn: TaskExecutor {
    private let queue = DispatchQueue(label: "touchgestured.tests.waits-on-processes")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
