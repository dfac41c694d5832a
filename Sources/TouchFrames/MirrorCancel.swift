/// How a touch a system gesture takes ends on the mirror (`[device] cancel`).
public enum MirrorCancel: String, CaseIterable, Hashable, Sendable {
    /// Lifted, as a finger that left: every compositor ends it at the app (cage, sway 1.7 and
    /// weston 10 drop libinput's TOUCH_CANCEL, measured in the e2e guest, and leave the app's
    /// touch point down for good).
    case lift
    /// `MT_TOOL_PALM`, then lifted: libinput reports TOUCH_CANCEL, which a compositor that
    /// forwards it turns into `wl_touch.cancel` (the app's touchcancel); one that drops it
    /// leaves the touch down in the app.
    case palm
}
