import Foundation
import TestSupport
import Testing

@testable import GestureEngine

/// Scroll chaining (`DragChain`): a sheet whose list scrolls, then hands the same stroke to the
/// sheet, as iOS sheets and Android's nested scrolling do. The sheet's offset: 0 open, 300 half,
/// 600 peeking; the list's: 0 at its top, down to −2000 scrolled to its end.
@Suite struct ScrollChainTests {
    static func sheet(sheetAt: Double = 300, listAt: Double = 0, listProjection: Int = 300) -> [RegionSpec] {
        let drag = GestureSpec(.pan, name: "drag", axis: .vertical)
        let scroll = GestureSpec(.pan, name: "scroll", axis: .vertical)
        return [
            RegionSpec(
                name: "sheet", rect: rect(0, 100, 1000, 900), gestures: [drag],
                drag: DragConstraints(
                    y: AxisConstraint(min: 0, max: 600, mode: .rubberBand, snapPoints: [0, 300, 600]), projection: .milliseconds(150),
                    initial: PixelPoint(x: 0, y: sheetAt))),
            RegionSpec(
                name: "list", rect: rect(0, 200, 1000, 800), gestures: [scroll],
                drag: DragConstraints(
                    y: AxisConstraint(min: -2000, max: 0, mode: .rubberBand), projection: .milliseconds(listProjection),
                    initial: PixelPoint(x: 0, y: listAt), chain: DragChain(region: "sheet", outerFirst: .up))),
        ]
    }

    /// The lines of region `name`, in order.
    func lines(_ t: Timeline, _ region: String) -> [GestureEvent] { t.events.filter { t.regionName($0) == region } }

    @Test func downward_theListScrollsToItsTop_thenTheSameStrokePullsTheSheet() {
        var t = Timeline(regions: Self.sheet(sheetAt: 300, listAt: -100))
        t.down(1, at: (500, 500))
        t.drag(1, by: (0, 250), over: .milliseconds(500), steps: 25)
        t.wait(.milliseconds(200))
        t.up(1)
        let list = lines(t, "list"), sheet = lines(t, "sheet")
        #expect(list.first?.phase == .began && list.last?.phase == .ended)
        #expect(sheet.first?.phase == .began && sheet.last?.phase == .ended, "the sheet's lines begin and end with the list's")
        #expect(sheet.first?.time == list.first?.time && sheet.last?.time == list.last?.time)
        // In between, each region has a line for the frames that moved it: the list's to its
        // top, then the sheet's (both at the hand-off frame).
        #expect(list.dropFirst().dropLast().allSatisfy { $0.consumed!.y != 0 })
        #expect(sheet.dropFirst().dropLast().allSatisfy { $0.consumed!.y != 0 })
        #expect(list.dropFirst().dropLast().last!.time <= sheet.dropFirst().first!.time)
        // The list consumed its 100 px to its top, the sheet the other 150.
        #expect(list.last?.offset == PixelPoint(x: 0, y: 0))
        #expect(sheet.last?.offset == PixelPoint(x: 0, y: 450))
        // One stroke, no jump: each line's offset moves by what it consumed, at most the finger's
        // step (10 px).
        for lines in [list, sheet] {
            for (a, b) in zip(lines, lines.dropFirst()) {
                #expect(abs(b.offset!.y - a.offset!.y) <= abs(b.consumed!.y) + 1e-9 && abs(b.consumed!.y) <= 10.0001)
            }
        }
        // What the two consumed adds up to the finger's travel.
        let consumed = (list + sheet).compactMap(\.consumed).reduce(0) { $0 + $1.y }
        #expect(abs(consumed - 250) < 1e-9)
        // Put down slowly: the sheet snaps to its nearest rest, the list stays at its top.
        #expect(sheet.last?.target == PixelPoint(x: 0, y: 300) || sheet.last?.target == PixelPoint(x: 0, y: 600))
        #expect(list.last?.target == PixelPoint(x: 0, y: 0))
        #expect(Set(sheet.map(\.id)).count == 1 && sheet.first?.id != list.first?.id)
    }

    @Test func upward_onAHalfOpenSheet_theSheetOpensFirst_thenTheListScrolls() {
        var t = Timeline(regions: Self.sheet(sheetAt: 300, listAt: 0))
        t.down(1, at: (500, 800))
        t.drag(1, by: (0, -400), over: .milliseconds(800), steps: 40)
        t.wait(.milliseconds(200))
        t.up(1)
        let list = lines(t, "list"), sheet = lines(t, "sheet")
        #expect(sheet.last?.offset == PixelPoint(x: 0, y: 0))
        #expect(list.last?.offset == PixelPoint(x: 0, y: -100))
        // While the sheet still had room, the list did not move (nor had a line).
        let firstListMove = try! #require(list.first { ($0.consumed?.y ?? 0) != 0 }?.time)
        let sheetOpen = try! #require(sheet.first { $0.offset?.y == 0 }?.time)
        #expect(firstListMove >= sheetOpen && list[1].time >= sheetOpen)
        #expect(sheet.last?.target == PixelPoint(x: 0, y: 0))
    }

    @Test func aFlickDownAtTheListsTop_goesToTheSheet_whichSnapsWithItsProjection() {
        var t = Timeline(regions: Self.sheet(sheetAt: 300, listAt: 0))
        t.down(1, at: (500, 500))
        t.drag(1, by: (0, 60), over: .milliseconds(50), steps: 5)
        t.up(1)
        let list = lines(t, "list"), sheet = lines(t, "sheet")
        // 360 + ~1200 px/s × 0.15 s: the nearest rest is the peek.
        #expect(sheet.last?.target == PixelPoint(x: 0, y: 600), "\(String(describing: sheet.last))")
        #expect(list.last?.target == PixelPoint(x: 0, y: 0))
    }

    @Test func aFlickUpOnAnOpenSheet_glidesTheList_andAGlidePastItsTopHandsTheRestToTheSheet() {
        // Open sheet: a flick up scrolls the list on (its glide, velocity × projection).
        var up = Timeline(regions: Self.sheet(sheetAt: 0, listAt: -500))
        up.down(1, at: (500, 600))
        up.drag(1, by: (0, -50), over: .milliseconds(50), steps: 5)
        up.up(1)
        let upList = lines(up, "list")
        let glide = try! #require(upList.last?.target?.y)
        #expect(glide < -550 - 100 && glide >= -2000, "\(glide)")
        #expect(lines(up, "sheet").last?.target == PixelPoint(x: 0, y: 0))
        // Near the list's top, a flick down: the glide meets the top, the sheet takes what is left.
        var down = Timeline(regions: Self.sheet(sheetAt: 0, listAt: -40))
        down.down(1, at: (500, 500))
        down.drag(1, by: (0, 50), over: .milliseconds(50), steps: 5)
        down.up(1)
        #expect(lines(down, "list").last?.target == PixelPoint(x: 0, y: 0))
        #expect((lines(down, "sheet").last?.target?.y ?? 0) > 0, "the sheet took the rest of the fling")
    }

    @Test func threeLevels_aPageHoldingTheSheet_takesWhatTheSheetCannot() {
        var regions = Self.sheet(sheetAt: 300, listAt: -50)
        regions.insert(
            RegionSpec(
                name: "page", gestures: [GestureSpec(.pan, name: "pull", axis: .vertical)],
                drag: DragConstraints(y: AxisConstraint(min: 0, max: 100, mode: .rubberBand))), at: 0)
        regions[1].drag?.chain = DragChain(region: "page", outerFirst: .up)
        var t = Timeline(regions: regions)
        t.down(1, at: (500, 500))
        t.drag(1, by: (0, 450), over: .milliseconds(900), steps: 45)
        t.wait(.milliseconds(200))
        t.up(1)
        // Down: the list first (50 to its top), then the sheet (300 to its peek), then the page (100).
        #expect(lines(t, "list").last?.offset == PixelPoint(x: 0, y: 0))
        #expect(lines(t, "sheet").last?.offset == PixelPoint(x: 0, y: 600))
        #expect(lines(t, "page").last?.offset == PixelPoint(x: 0, y: 100))
        let consumed = t.events.compactMap(\.consumed).reduce(0) { $0 + $1.y }
        #expect(abs(consumed - 450) < 1e-9)
    }

    @Test func aStrokeOnTheHandle_dragsTheSheetAlone_fromWhereTheChainLeftIt() {
        var t = Timeline(regions: Self.sheet(sheetAt: 300, listAt: 0))
        t.down(1, at: (500, 500))
        t.drag(1, by: (0, -300), over: .milliseconds(600), steps: 30)
        t.wait(.milliseconds(200))
        t.up(1)
        #expect(lines(t, "sheet").last?.target == PixelPoint(x: 0, y: 0))
        t.wait(.milliseconds(500))
        t.events.removeAll()
        t.down(2, at: (500, 150))  // on the handle, above the list
        t.drag(2, by: (0, 100), over: .milliseconds(400), steps: 20)
        t.wait(.milliseconds(200))
        t.up(2)
        #expect(lines(t, "list").isEmpty)
        #expect(lines(t, "sheet").last?.offset == PixelPoint(x: 0, y: 100))
        #expect(lines(t, "sheet").last?.consumed == nil, "a plain drag: nothing shared")
    }

    @Test func anAxisLockedCarouselInTheList_isNoPartOfTheChain() {
        var regions = Self.sheet(sheetAt: 300, listAt: 0)
        regions.append(RegionSpec(name: "carousel", rect: rect(0, 400, 1000, 200), gestures: [GestureSpec(.pan, name: "slide", axis: .horizontal)]))
        var t = Timeline(regions: regions)
        t.down(1, at: (500, 500))
        t.drag(1, by: (120, 10), over: .milliseconds(300), steps: 12)
        t.up(1)
        #expect(t.qualifiedLog.first == "carousel/slide began")
        #expect(lines(t, "sheet").isEmpty && lines(t, "list").isEmpty)
    }
}

extension ScrollChainTests {
    /// A frame that moves neither region (the list's pan, free, slides across the chained axis)
    /// keeps the list's own line, with nothing consumed, and gives the sheet none: every frame
    /// of the stroke has a line.
    @Test func aFrameThatMovesNoRegion_keepsTheInnersLine_withNothingConsumed() {
        var regions = Self.sheet(sheetAt: 300, listAt: -100)
        regions[1].gestures[0].axis = .free
        var t = Timeline(regions: regions)
        t.down(1, at: (500, 500))
        t.drag(1, by: (0, 50), over: .milliseconds(100), steps: 5)
        t.events.removeAll()
        t.wait(.milliseconds(16))
        t.move(1, to: (540, t.contacts[0].position.y))
        let list = lines(t, "list"), sheet = lines(t, "sheet")
        #expect(list.map(\.phase) == [.changed] && list.first?.consumed == PixelPoint(x: 0, y: 0), "\(list)")
        #expect(list.first?.offset == PixelPoint(x: 0, y: -50))
        #expect(sheet.isEmpty)
    }

    @Test func aNewConfiguration_keepsWhereEachRegionRests_byName() {
        var t = Timeline(regions: Self.sheet(sheetAt: 300, listAt: 0))
        t.down(1, at: (500, 800))
        t.drag(1, by: (0, -400), over: .milliseconds(800), steps: 40)
        t.wait(.milliseconds(200))
        t.up(1)
        // The list's content grew (a client sends its new range): the sheet stays open, the list
        // where it was scrolled to.
        var grown = Self.sheet(sheetAt: 300, listAt: 0)
        grown[1].drag?.y?.min = -5000
        t.engine.reconfigure(CompiledConfiguration(EngineConfiguration(screen: rect(0, 0, 1000, 1000), regions: grown)))
        t.wait(.milliseconds(100))
        t.events.removeAll()
        t.down(2, at: (500, 800))
        t.drag(2, by: (0, -50), over: .milliseconds(200), steps: 10)
        t.wait(.milliseconds(200))
        t.up(2)
        #expect(lines(t, "sheet").last?.offset == PixelPoint(x: 0, y: 0))
        #expect(lines(t, "list").last?.offset == PixelPoint(x: 0, y: -150))
    }
}

/// Random strokes on the chained sheet (fixed seeds): whatever the hand does, each region's
/// offset moves no more than it consumed (no jump at a hand-off), what the regions consumed
/// adds up to the finger's move in each frame and over the stroke, the enclosing region's lines
/// begin and end with the inner's and in between come only when it moved, and every stroke ends
/// with both at rest within their bounds.
@Suite struct ScrollChainPropertyTests {
    @Test(arguments: [1, 2, 3, 5, 8, 13, 21, 34] as [UInt64])
    func randomStrokes_keepTheChainsInvariants(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var t = Timeline(regions: ScrollChainTests.sheet(sheetAt: 300, listAt: -Double(Int.random(in: 0...400, using: &rng))))
        for stroke in 0..<6 {
            t.events.removeAll()
            let id = UInt32(stroke + 1)
            t.down(id, at: (500, Double.random(in: 300...900, using: &rng)))
            var travel = 0.0, y = 0.0
            for _ in 0..<Int.random(in: 5...40, using: &rng) {
                let step = Double.random(in: -30...30, using: &rng)
                t.wait(.milliseconds(Int64.random(in: 8...20, using: &rng)))
                y += step
                travel += step
                t.move(id, to: (500, t.contacts[0].position.y + step))
            }
            if Bool.random(using: &rng) { t.wait(.milliseconds(200)) }
            t.up(id)
            t.wait(.milliseconds(600))
            let list = t.events.filter { t.regionName($0) == "list" && $0.kind == .pan }
            let sheet = t.events.filter { t.regionName($0) == "sheet" && $0.kind == .pan }
            guard !list.isEmpty else { continue }  // a stroke under the slop: a tap, no pan
            // Both regions' lines begin and end together.
            #expect(sheet.first?.phase == .began && list.first?.phase == .began && sheet.first?.time == list.first?.time)
            #expect([.ended, .cancelled].contains(list.last?.phase) && sheet.last?.phase == list.last?.phase && sheet.last?.time == list.last?.time)
            // In between, a line goes to the regions the frame moved (the list's line stays when
            // the frame moved neither): every frame has a line, and what the frame's lines consumed
            // is the finger's move in that frame.
            #expect(sheet.dropFirst().dropLast().allSatisfy { $0.consumed!.y != 0 }, "seed \(seed) stroke \(stroke): a sheet line without news")
            let frames = Dictionary(grouping: list + sheet, by: \.time).sorted { $0.key < $1.key }
            for (a, b) in zip(frames, frames.dropFirst()) {
                let finger = b.value[0].translation.y - a.value[0].translation.y
                let consumed = b.value.reduce(0) { $0 + $1.consumed!.y }
                #expect(abs(consumed - finger) < 1e-6, "seed \(seed) stroke \(stroke): consumed \(consumed), the finger \(finger)")
            }
            // The finger's travel as the pan saw it (from its first event on, past the slop).
            let seen = (list.last?.translation.y ?? 0)
            let consumed = (list + sheet).compactMap(\.consumed).reduce(0) { $0 + $1.y }
            #expect(abs(consumed - seen) < 1e-6, "seed \(seed) stroke \(stroke): consumed \(consumed), travel \(seen)")
            // No jump: between two of its lines a region's offset moves by what it consumed at
            // most (less in a rubber band).
            for lines in [list, sheet] {
                for (a, b) in zip(lines, lines.dropFirst()) {
                    #expect(abs(b.offset!.y - a.offset!.y) <= abs(b.consumed!.y) + 1e-6, "seed \(seed) stroke \(stroke): a jump")
                }
            }
            let sheetRest = sheet.last?.target?.y ?? 0, listRest = list.last?.target?.y ?? 0
            #expect([0, 300, 600].contains(sheetRest), "seed \(seed): the sheet rests at \(sheetRest)")
            #expect(listRest <= 0 && listRest >= -2000, "seed \(seed): the list rests at \(listRest)")
            _ = y
        }
    }
}
