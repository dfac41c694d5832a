import Testing

@testable import GestureEngine

@Suite struct FrameListTests {
    @Test func emptied_itIsEmpty_andFillsAgainInOrder() {
        var list = FrameList<Int>(capacity: 2)
        for v in [3, 1, 4] { list.append(v) }
        #expect(Array(list) == [3, 1, 4] && list.count == 3)
        list.removeAll()
        #expect(list.isEmpty && Array(list) == [])
        // Refilled: what the last frame left past the count is never seen.
        list.append(9)
        #expect(Array(list) == [9] && list.first == 9 && list.last == 9)
        list[0] = 8
        #expect(list.contains(8) && !list.contains(4))
    }
}
