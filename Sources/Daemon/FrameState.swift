import TouchInput
import Pipeline
import TouchFrames

/// What changes per frame, in one value: the devices' table and the fan-out. A read goes
/// through a pipeline into the fan-out, and a turn ends with the fan-out's writes and the
/// devices' next deadline, each in one `mutating` call here. Owned by the daemon's `run` and
/// handed `inout` to whatever touches it (the loop's handlers, the devices, the server).
struct FrameState {
    var devices = DeviceTable()
    var fanout: Fanout

    /// A read's batch through device `id`'s pipeline and out to the subscribers (`DeviceTable.feed`).
    mutating func feed(_ batch: InputBatch, from id: UInt32, turn: EventLoop) -> Int? {
        devices.feed(batch, from: id, to: &fanout, turn: turn)
    }

    /// What device `k` made (a deadline, a removal) out to the subscribers.
    mutating func handOff(_ k: Int, turn: EventLoop) -> Bool {
        devices.handOff(k, to: &fanout, turn: turn)
    }

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
