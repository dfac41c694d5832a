#if canImport(Glibc)
    import Glibc
#endif

/// Waits for something another process does (a daemon's reload, a child's exit): asks
/// `condition` until it holds or `seconds` have passed, and says which. The one place tests wait
/// on another process; a test never sleeps a fixed time and then asserts.
@discardableResult
public func eventually(within seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    var start = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    var pause: UInt32 = 2_000
    while true {
        if try condition() { return true }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        if Double(now.tv_sec - start.tv_sec) + Double(now.tv_nsec - start.tv_nsec) / 1e9 >= seconds { return false }
        usleep(pause)
        pause = min(pause * 2, 50_000)
    }
}
