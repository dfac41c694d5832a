# shellcheck shell=sh
# README's matrix ("Running under a compositor"): each compositor with the daemon in pass-through
# (cancel lift and palm) and in observe (the compositor reads the panel beside the daemon), what
# its client saw by part. Run only when named: E2E_ONLY=compositor_matrix.
compositor_matrix() {
    needs udevd
    for comp in cage sway weston; do
        [ -x /bin/$comp ] || continue
        for variant in "passthrough lift" "passthrough palm" "observe lift"; do
            set -- $variant
            compositor_play $comp $1 $2
            echo "E2E MATRIX compositor-$comp mode $1 cancel $2: $parts client: $summary"
        done
    done
}
