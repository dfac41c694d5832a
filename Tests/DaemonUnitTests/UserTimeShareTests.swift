import Testing

@testable import Daemon

/// Each user's share of the daemon's time for its requests (`request_ms_per_user`): a burst of
/// a tenth of a second's worth, then the share; a debt paid back over time; one user's debt is
/// no other's.
@Suite struct UserTimeShareTests {
    static let ms: Int64 = 1_000_000

    @Test func aUser_hasABurstOfATenthOfASecondsWorth_thenWaitsItsDebtOut() {
        var share = UserTimeShare(nsPerSecond: 100e6)  // 100 ms a second: a burst of 10 ms
        let t0: Int64 = 5_000 * Self.ms
        #expect(share.left(0, now: t0) == 10e6)
        // 9 ms of requests: 1 ms left, no wait.
        for k in 0..<9 { share.charge(0, Self.ms, now: t0 + Int64(k) * 1_000) }
        #expect(share.wait(0, now: t0 + 9_000) == 0)
        // 3 ms more: 2 ms in debt (the 10 µs that passed refilled 1 µs), paid back in about
        // 20 ms at 100 ms a second.
        share.charge(0, 3 * Self.ms, now: t0 + 10_000)
        let debt = share.left(0, now: t0 + 10_000)
        #expect(debt < -1.99e6 && debt > -2e6)
        let wait = share.wait(0, now: t0 + 10_000)
        #expect(wait > 19 * Self.ms && wait <= 20 * Self.ms + 10)
        // Once it is over the user has time again, and a tenth of a second later the whole burst.
        #expect(share.left(0, now: t0 + 10_000 + wait) > 0)
        #expect(share.left(0, now: t0 + 10_000 + wait + 100 * Self.ms) == 10e6)
    }

    @Test func oneUsersDebt_isNoOtherUsers() {
        var share = UserTimeShare(nsPerSecond: 10e6)
        share.charge(1000, 50 * Self.ms, now: Self.ms)
        #expect(share.left(1000, now: Self.ms) < 0)
        #expect(share.left(0, now: Self.ms) == 1e6)
        #expect(share.wait(0, now: Self.ms) == 0)
    }

    /// A wait is never under 1 ms (a throttled client is not woken for a sliver), and time
    /// running backwards (an earlier `now`) refills nothing.
    @Test func aSliverOfDebt_waitsOneMillisecond_andAnEarlierNowRefillsNothing() {
        var share = UserTimeShare(nsPerSecond: 100e6)
        share.charge(7, 10 * Self.ms + 1_000, now: 10 * Self.ms)
        #expect(share.wait(7, now: 10 * Self.ms) == Self.ms)
        #expect(share.left(7, now: 9 * Self.ms) < 0)
    }
}
