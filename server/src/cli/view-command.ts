/**
 * `mpiscope view RUN.json [OTHER.json]`: a standalone HTML page with the net-test heatmaps (the same lit
 * component as the VS Code editor, dist/netview.js, inlined with the data), which any browser opens with no
 * server and no network. `--csv` writes the first run's matrices as CSV instead.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { NetTestFormatError, readNetTestText, toCsv } from '../perf/net-test-file';
import { UsageError } from '../session/session-api';
import { parseToolOptions } from './tool-options';

export const VIEW_HELP = `mpiscope view — the heatmaps of a net-test result as a standalone HTML page

Usage:
  mpiscope view RUN.json [OTHER.json] [--output PAGE.html]    (default: RUN.html beside RUN.json)
  mpiscope view RUN.json --csv FILE.csv                       the matrices as CSV

With two runs the page shows them side by side or as a ratio (first ÷ second); they need the same ranks.
`;

/** JSON inside a <script> element: no "<" survives, so no "</script>" can close it early. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** A CSP source that allows exactly this inline text (no nonce: the page is a file, written once). */
export function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

const PAGE_STYLE =
  'html, body { margin: 0; height: 100%; background: #1e1e1e; } mpi-heatmap { height: 100vh; box-sizing: border-box; padding: 8px; }';

export function viewPage(names: readonly string[], texts: readonly string[], bundle: string): string {
  const title = `mpiscope net-test: ${names.join(' vs ')}`.replace(/[<>&"]/g, '');
  const script = bundle.replace(/<\/script/gi, '<\\/script');
  // Only the page's own style and script run, each allowed by its hash: an injected <script> or style
  // attribute in a result file's text would not (lit's component styles are constructed stylesheets, which
  // style-src does not govern). The JSON data block is not executed, so it needs no source.
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspHash(PAGE_STYLE)}; script-src ${cspHash(script)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<mpi-heatmap></mpi-heatmap>
<script type="application/json" id="mpiscope-net-test">${scriptJson({ names, texts })}</script>
<script type="module">${script}</script>
</body>
</html>
`;
}

export function viewCommand(argv: readonly string[], cwd: string): Promise<number> {
  return Promise.resolve(view(argv, cwd));
}

function view(argv: readonly string[], cwd: string): number {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(VIEW_HELP);
    return 0;
  }
  const o = parseToolOptions('view', argv, ['--output', '--csv']);
  const files = o.positional;
  if (files.length === 0 || files.length > 2)
    throw new UsageError(
      'mpiscope view takes one net-test result file, or two to compare: mpiscope view RUN.json [OTHER.json]',
    );
  const texts = files.map((f) => {
    try {
      return readFileSync(resolve(cwd, f), 'utf8');
    } catch (err) {
      throw new UsageError(
        `cannot read ${f}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  });
  const runs = texts.map((t, k) => {
    try {
      return readNetTestText(t);
    } catch (err) {
      if (err instanceof NetTestFormatError)
        throw new UsageError(
          `${files[k]} is not a net-test result: ${err.message}; write one with mpiscope net-test`,
        );
      throw err;
    }
  });
  const [a, b] = runs;
  if (a !== undefined && b !== undefined && a.hosts.length !== b.hosts.length)
    throw new UsageError(
      `${files[0]} has ${a.hosts.length} ranks and ${files[1]} has ${b.hosts.length}; compare runs of the same number of ranks`,
    );
  const csv = o.values.get('--csv');
  if (csv !== undefined) {
    if (a !== undefined) writeFileSync(resolve(cwd, csv), toCsv(a));
    process.stdout.write(`mpiscope view: wrote ${csv}\n`);
    return 0;
  }
  const bundlePath = join(__dirname, 'netview.js');
  if (!existsSync(bundlePath))
    throw new UsageError(`the heatmap page's script ${bundlePath} is missing; run node scripts/build.mjs`);
  const first = files[0] as string;
  const output = resolve(cwd, o.values.get('--output') ?? `${first.replace(/\.json$/i, '')}.html`);
  writeFileSync(
    output,
    viewPage(
      files.map((f) => basename(f)),
      texts,
      readFileSync(bundlePath, 'utf8'),
    ),
  );
  process.stdout.write(`mpiscope view: wrote ${output}; open it in a browser\n`);
  return 0;
}
