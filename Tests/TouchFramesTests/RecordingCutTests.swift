import Testing

@testable import TouchFrames

/// Recordings as users hand them over: cut short by a recorder stopped mid-write, or saved by an
/// editor that puts a byte order mark first.
@Suite struct RecordingCutTests {
    /// `libinput record` stopped mid-write leaves a file ending inside an event's line: every
    /// whole event is read, the cut one left out and named for the tools' warning, as an evemu
    /// file's is. Cut anywhere else in the events, the file reads all it holds.
    @Test func aLibinputRecordFileCutInsideAnEvent_readsEveryWholeEvent() throws {
        let whole = try Evemu.parse(EvemuTests.libinputRecord, file: "rec.yml")
        let text = EvemuTests.libinputRecord
        let lastEvent = try #require(text.range(of: "- [  0,  80000,   0,   0,      0]"))
        for cut in [3, 12, 20, 32] {
            let short = String(text[..<text.index(lastEvent.lowerBound, offsetBy: cut)])
            let r = try Evemu.parse(short, file: "cut.yml")
            #expect(r.description == whole.description, "cut at \(cut)")
            #expect(r.events == Array(whole.events.dropLast()), "cut at \(cut)")
            #expect(r.unterminatedLine == 57 && r.unterminatedLeftOut, "cut at \(cut)")
            #expect(r.unterminatedWarning == "57: the file ends inside this event (no newline, an incomplete event): left out")
        }
        // Cut after its closing bracket, or inside the comment after it: the event is whole,
        // nothing is said.
        let atBracket = try Evemu.parse(String(text[..<lastEvent.upperBound]), file: "cut.yml")
        #expect(atBracket.events == whole.events && atBracket.unterminatedLine == nil)
        let comment = try #require(text.range(of: "---------- +0ms"))
        let inComment = String(text[..<comment.lowerBound])
        let r = try Evemu.parse(inComment, file: "cut.yml")
        #expect(r.events == Array(whole.events.prefix(5)) && r.unterminatedLine == nil)
        // The same broken event with a line end after it is an error, as any broken line.
        #expect(throws: RecordingError.self) { try Evemu.parse(String(text[..<text.index(lastEvent.lowerBound, offsetBy: 20)]) + "\n", file: "bad.yml") }
    }

    /// Cut inside the description, the file is refused, and the error says where it ends.
    @Test func aLibinputRecordFileCutInItsDescription_isRefusedSayingSo() throws {
        let text = EvemuTests.libinputRecord
        let axis = try #require(text.range(of: "53: [0, 3200, 0"))
        #expect(
            throws: RecordingError(file: "cut.yml", line: 33, reason: "expected a list like [1, 2, 3] (the file ends inside this line: cut short?)")
        ) { try Evemu.parse(String(text[..<axis.upperBound]), file: "cut.yml") }
    }

    /// A byte order mark before the first line (an editor's) is no part of it: the file reads
    /// as without it, evemu's and libinput's alike.
    @Test func aByteOrderMarkFirst_isNoPartOfTheRecording() throws {
        let evemu = "# EVEMU 1.3\nN: x\nA: 35 0 100 0 0 0\nA: 36 0 100 0 0 0\nE: 0.000000 0003 0035 1\nE: 0.000000 0000 0000 0\n"
        for text in [evemu, EvemuTests.libinputRecord] {
            let plain = try Evemu.parse(text, file: "plain")
            let marked = try Evemu.parse("\u{FEFF}" + text, file: "marked")
            #expect(marked.description == plain.description && marked.events == plain.events && !plain.events.isEmpty)
        }
        // One mark is passed over, no more: a file of marks is refused at its first line, and
        // reading it goes no deeper for each (a recursion a mark would overflow the stack).
        let marks = String(repeating: "\u{FEFF}", count: 200_000) + evemu
        #expect(throws: RecordingError.self) { try Evemu.parse(marks, file: "marks") }
    }
}
