#!/usr/bin/env bash
# The web bridge in a real browser (Tests/web/run.py): builds the daemon and touchgestured-web,
# then runs the page test, the calibration page's (Tests/web/calibrate.py) and the chained sheet's
# (Tests/web/sheet.py) with Debian's headless chromium. Prints `WEB ...` lines.
#   Tests/web/run.sh [SCREENSHOT.png]
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --product touchgestured >&2
swift build --product touchgestured-web >&2
bin=$(swift build --show-bin-path)
work=$(mktemp -d /tmp/touchgestured-web.XXXXXX)
/usr/bin/python3 Tests/web/run.py "$bin" "$work" "$@"
/usr/bin/python3 Tests/web/calibrate.py "$bin" "$work"
/usr/bin/python3 Tests/web/sheet.py "$bin" "$work"
