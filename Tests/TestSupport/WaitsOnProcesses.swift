import Dispatch
import Testing

/// A suite trait for tests that wait on another process (a daemon they started, a child): each
/// test runs on a thread of its own, not on Swift concurrency's pool. That pool has one thread a
/// CPU, so on CI's two cores two tests blocked in `poll(2)` for a daemon's line stopped every
/// other test: `swift test` took 95 s with its CPUs 40 % busy. At most ten such tests run at
/// once (each serialized suite runs one at a time anyway), so their daemons do not crowd out the
/// CPUs their deadlines are measured on.
public struct WaitsOnProcesses: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite || testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let gate = ProcessTestGate.shared
        await gate.enter()
        do {
            try await withTaskExecutorPreference(ThreadOfItsOwn()) { try await function() }
        } catch {
            await gate.leave()
            throw error
        }
        await gate.leave()
    }
}

extension Trait where Self == WaitsOnProcesses {
    /// The suite's tests wait on processes: each runs on a thread of its own (`WaitsOnProcesses`).
    public static var waitsOnProcesses: Self { WaitsOnProcesses() }
}

/// How many tests that wait on processes run at once: free slots, and the tests waiting their
/// turn in order of arrival.
actor ProcessTestGate {
    static let shared = ProcessTestGate(width: 10)

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) { free = width }

    func enter() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
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
