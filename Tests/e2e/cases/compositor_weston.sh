# shellcheck shell=sh
compositor_weston() {
    needs udevd
    needs compositor weston || return
    compositor_case weston
}
