# shellcheck shell=sh
compositor_cage() {
    needs udevd
    needs compositor cage || return
    compositor_case cage
}
