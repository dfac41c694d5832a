# shellcheck shell=sh
compositor_sway() {
    needs udevd
    needs compositor sway || return
    compositor_case sway
}
