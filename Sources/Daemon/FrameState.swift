import GestureProtocol
import TouchInput
import Pipeline
import TouchFrames

/// What changes per frame, in one value: the devices' table and the fan-out. An input goes
/// down the route (`DeviceLifecycle.route`: the table's stages, then the fan-out), and a turn ends with
/// the fan-out's writes and the devices' next deadline, in one `mutating` call here. Owned by the daemon's `run` and
/// handed `inout` to whatever touches it (the loop's handlers, the devices, the server).
struct FrameState: ~Copyable {
    var devices = DeviceTable()
    var fanout: Fanout

    /// The end of a loop turn: every queue written (`Fanout.endTurn`) and what the daemon reads
    /// of the devices after it.
    mutating func endTurn(turnClock: Int64?) -> TurnEnd {
        let deadline = devices.earliestDeadline
        let f = fanout.endTurn(turnClock: turnClock, deadline: deadline)
        return TurnEnd(deadline: deadline, anomalies: devices.anomalies, holdingDue: f.holdingDue, readAgain: f.readAgain, notices: f.notices)
    }

    struct TurnEnd {
        /// The engines' earliest deadline (monotonic ns), and their anomalies so far.
        var deadline: Int64?
        var anomalies: Int
        /// When held lines are due; when to read the panels next (nil: at once); whether the
        /// fan-out has notices for the server.
        var holdingDue: Int64?
        var readAgain: Int64?
        var notices: Bool
    }
}
