// The input thread's path for a pass-through panel under callgrind (scripts/count-mirror): what
// `ThreadedPanel` does with a read, less its lock and its relay to the loop. Each frame of a
// recording goes through a decoder that keeps the panel's contacts, onto the mirror ahead of the
// engine, and out in one write (dropped here), a read a frame as a panel at 1 kHz is read.
//     MirrorCount RECORDING
import GestureConfig
import SystemCalls
import TouchFrames
import TouchMirror

/// The mirror's writes, counted and dropped.
final class DroppedWrites: TouchSink {
    var events = 0
    func send(_ batch: [KernelInputEvent]) -> SystemCallError? {
        events += batch.count
        return nil
    }
}

let path = CommandLine.arguments.dropFirst().first ?? "bench.events"
let recording = try! Evemu.parse(try! readTextFile(path), file: path)
let description = recording.description!
// The reads, each a frame in the kernel's layout, made before the count starts.
var reads: [[KernelInputEvent]] = []
var read: [KernelInputEvent] = []
for e in recording.events {
    let us = e.time.nanoseconds / 1000
    read.append(KernelInputEvent(seconds: Int(us / 1_000_000), microseconds: Int(us % 1_000_000), type: e.type, code: e.code, value: e.value))
    if e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT {
        reads.append(read)
        read.removeAll()
    }
}
var decoder = FrameDecoder(description: description, geometry: Configuration.standard.geometry)!
decoder.keepsPanel = true
decoder.feedsEngine = false
let sink = DroppedWrites()
var thread = ThreadPath(
    decoder: decoder, mirror: Mirror(screen: sink, described: VirtualTouchscreen.description(mirroring: description), cancel: .lift))
var frames = 0
for r in reads { frames += thread.read(r) }
print("\(frames) frames, \(sink.events) events written")

/// The thread's decoder and mirror (`ThreadedPanel.Shared`).
struct ThreadPath {
    var decoder: FrameDecoder
    var mirror: Mirror

    /// One read down the thread's path (`ThreadedPanel.Shared.take`): the frames it ends shown,
    /// one write. Not inlined: scripts/count-mirror counts inside it.
    @inline(never)
    mutating func read(_ events: [KernelInputEvent]) -> Int {
        let span = events.span
        var i = 0, made = 0
        while i < span.count {
            guard decoder.feed(span, from: &i) else { continue }
            made += 1
            // As `ThreadedPanel.Shared.frameMade` shows it.
            mirror.frameAhead(
                decoder.panel, others: decoder.others, discontinuity: decoder.frame.discontinuity, stuck: decoder.contactsEndedAsStuck,
                now: decoder.frame.time.nanoseconds)
        }
        if made > 0 { _ = mirror.flush() }
        return made
    }
}
