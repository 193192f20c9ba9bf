#!/usr/bin/env bash
# The end-to-end tier: the packaged extension in a real VS Code (code-server 4.139.1 under Node 24,
# driven by Debian's Chromium through playwright-core). Installs the tools on first use (a few minutes,
# then cached in .tools/), packages dist/mpiscope.vsix, then runs the checks in dist/test/e2e/.
# Screenshots of every key step land in test/e2e/.out/. Environment: E2E_ONLY=TEXT runs only the
# checks whose name contains TEXT; E2E_SERVER_LOG=1 prints code-server's log at the end; E2E_KEEP=1
# keeps the run's temporary folder (workspace copies, code-server's and Chromium's state).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-e2e-tools.sh
bash scripts/package.sh

started=$SECONDS
status=0
# The suite guards itself (8 minutes); this outer limit is for a wedged Node.
timeout -k 10 600 node dist/test/e2e/test__e2e__workbench.test.js || status=$?
# The net-test heatmap page in Chromium alone (no workbench): the page `mpiscope view` writes.
timeout -k 10 180 node --test --test-force-exit --import ./scripts/test-report-blocking.mjs dist/test/e2e/test__e2e__heatmap-page.test.js || status=$?
echo "e2e: checks took $((SECONDS - started)) s (whole script ${SECONDS} s); screenshots in test/e2e/.out/"
exit $status
