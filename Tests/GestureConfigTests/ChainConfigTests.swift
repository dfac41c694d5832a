import GestureEngine
import Testing

@testable import GestureConfig

/// `[region.drag] chain`: read, resolved against the nesting, refused with its line and reason.
@Suite struct ChainConfigTests {
    static let sheet = """
        [[region]]
        name = "sheet"
        rect = [0, 280, 1920, 800]
        [[region.gesture]]
        kind = "pan"
        name = "drag"
        axis = "vertical"
        [region.drag.y]
        min = 0
        max = 600
        snap = [0, 300, 600]

        [[region]]
        name = "list"
        rect = [0, 360, 1920, 720]
        [[region.gesture]]
        kind = "pan"
        name = "scroll"
        axis = "vertical"
        [region.drag]
        chain = "sheet"
        [region.drag.y]
        min = -2000
        max = 0

        """

    @Test func aChain_isReadAndResolved() throws {
        let c = try ConfigLoader.parse(Self.sheet, file: "sheet.toml")
        #expect(c.engine.regions[1].drag?.chain == DragChain(region: "sheet", outerFirst: .up))
        let compiled = CompiledConfiguration(c.engine)
        #expect(compiled.regions[1].chain?.outer == 0 && compiled.regions[1].chain?.vertical == true)
        let down = try ConfigLoader.parse(Self.sheet.replacingOccurrences(of: "chain = \"sheet\"", with: "chain = \"sheet\"\nchain_outer_first = \"down\""), file: "s.toml")
        #expect(down.engine.regions[1].drag?.chain?.outerFirst == .down)
    }

    @Test func aClientsRegion_mayChainToTheFilesSheet() throws {
        let sheetOnly = String(Self.sheet[..<Self.sheet.range(of: "[[region]]\nname = \"list\"")!.lowerBound])
        let base = try ConfigLoader.parse(sheetOnly, file: "sheet.toml")
        let client = try parseTOML("""
            [[region]]
            name = "page-list"
            rect = [0, 400, 1920, 600]
            gesture = [{ kind = "pan", name = "scroll", axis = "vertical" }]
            drag = { chain = "sheet", y = { min = -5000, max = 0 } }
            """)
        guard case .tables(let tables)? = client["region"] else { Issue.record("no regions"); return }
        let added = try ConfigLoader.clientRegions(tables, base: base, file: "client #1")
        var engine = base.engine
        engine.regions += added
        let compiled = CompiledConfiguration(engine)
        #expect(compiled.regions.last?.chain?.outer == 0)
    }

    @Test func chainsThatCannotBe_areRefusedWithTheirLine() {
        for (text, line, reason) in [
            (Self.sheet.replacingOccurrences(of: "chain = \"sheet\"", with: "chain = \"shelf\""), 21, "which is no region"),
            (Self.sheet.replacingOccurrences(of: "rect = [0, 360, 1920, 720]", with: "rect = [0, 0, 100, 100]"), 21, "does not enclose it"),
            (Self.sheet.replacingOccurrences(of: "chain = \"sheet\"", with: "chain = \"sheet\"\nchain_outer_first = \"left\""), 21, "along x"),
            (Self.sheet.replacingOccurrences(of: "chain = \"sheet\"", with: "chain_outer_first = \"up\""), 21, "needs 'chain'"),
            (Self.sheet.replacingOccurrences(of: "chain = \"sheet\"", with: "chain = \"sheet\"\nchain_outer_first = \"inward\""), 22, "'chain_outer_first' must be one of"),
        ] {
            do {
                _ = try ConfigLoader.parse(text, file: "sheet.toml")
                Issue.record("accepted: \(reason)")
            } catch {
                #expect(error.line == line && error.reason.contains(reason), "\(error)")
            }
        }
    }

    /// Five panes, each in the last, each chained to the one around it: the inner four are a
    /// chain as deep as a stroke holds; the fifth, one level too many, is refused at its line.
    @Test func aChainDeeperThanFourLevels_isRefused() throws {
        func panes(_ n: Int) -> String {
            (0..<n).map { i in
                let inset = 40 * i
                return """
                    [[region]]
                    name = "pane\(i)"
                    rect = [\(inset), \(inset), \(1000 - 2 * inset), \(1000 - 2 * inset)]
                    [[region.gesture]]
                    kind = "pan"
                    name = "drag"
                    axis = "vertical"
                    [region.drag]
                    \(i == 0 ? "projection = 100" : "chain = \"pane\(i - 1)\"")
                    [region.drag.y]
                    min = -500
                    max = 0

                    """
            }.joined()
        }
        let four = try ConfigLoader.parse(panes(4), file: "panes.toml")
        #expect(CompiledConfiguration(four.engine).regions[3].chain?.outer == 2)
        do {
            _ = try ConfigLoader.parse(panes(5), file: "panes.toml")
            Issue.record("a five-level chain accepted")
        } catch {
            #expect(error.line == 57 && error.reason.contains("5 levels deep") && error.reason.contains("at most 4"), "\(error.line) \(error.reason)")
        }
    }
}

extension String {
    func replacingOccurrences(of a: String, with b: String) -> String {
        split(separator: a, omittingEmptySubsequences: false).joined(separator: b)
    }
}
