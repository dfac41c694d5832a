import SystemCalls
import Testing

@testable import Daemon

/// The route's one place for failed writes: every failure counted, logged the first time and
/// every 1000th, never between, and a success is not a failure.
@Suite struct FailureThrottleTests {
    @Test func failures_areCounted_andLoggedTheFirstTimeThenEveryThousandth() {
        var t = FailureThrottle()
        let succeeded = t.note(nil)
        let none = t.take()
        #expect(!succeeded && t.count == 0 && none == nil)
        let e = SystemCallError("write(uinput)", 5)
        var logged: [Int] = []
        for _ in 0..<2500 {
            let failed = t.note(e)
            #expect(failed)
            if let f = t.take() {
                #expect(f.error == e)
                logged.append(f.count)
            }
        }
        #expect(t.count == 2500)
        #expect(logged == [1, 1000, 2000])
        // Taken once: asking again before the next failure gives nothing.
        let again = t.take()
        #expect(again == nil)
    }
}
