import Testing
import TouchInput

@Suite struct HotplugCollapseTests {
    typealias C = HotplugMonitor.Change

    @Test func createThenAttrib_isOneArrival() {
        #expect(HotplugMonitor.collapse([.added("/dev/input/event3"), .added("/dev/input/event3")]) == [.added("/dev/input/event3")])
    }

    /// Found by the qemu hotplug storm: the kernel reuses a node at once, so one inotify batch can
    /// hold a device's arrival, its removal and the next device's arrival at the same path. The
    /// next device must not be lost.
    @Test func nodeReusedWithinOneBatch_keepsEveryDevice() {
        let e3 = "/dev/input/event3", e4 = "/dev/input/event4"
        let batch: [C] = [.added(e3), .added(e3), .added(e4), .removed(e3), .added(e3), .added(e3), .removed(e4), .removed(e3), .added(e3)]
        #expect(HotplugMonitor.collapse(batch) == [.added(e3), .added(e4), .removed(e3), .added(e3), .removed(e4), .removed(e3), .added(e3)])
    }
}
