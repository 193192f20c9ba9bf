import { CALL_CLASS_NAMES } from '../../../server/src/timeline/timeline-protocol';

/**
 * Colours come only from VS Code's theme variables (so light, dark and high-contrast themes just work),
 * each with a fallback from the Dark Modern theme for the standalone page.
 */
const CLASS_VARS: readonly (readonly [string, string])[] = [
  ['--vscode-charts-foreground', '#8b949e'], // other
  ['--vscode-charts-blue', '#3794ff'], // send
  ['--vscode-charts-green', '#89d185'], // recv
  ['--vscode-charts-purple', '#b180d7'], // collective
  ['--vscode-charts-yellow', '#cca700'], // wait
  ['--vscode-disabledForeground', '#6e7681'], // setup
];

const NAMED = {
  background: ['--vscode-editor-background', '#1f1f1f'],
  foreground: ['--vscode-editor-foreground', '#cccccc'],
  muted: ['--vscode-descriptionForeground', '#9d9d9d'],
  grid: ['--vscode-editorIndentGuide-background', '#404040'],
  laneAlt: ['--vscode-list-hoverBackground', '#2a2d2e'],
  border: ['--vscode-panel-border', '#2b2b2b'],
  error: ['--vscode-errorForeground', '#f85149'],
  warning: ['--vscode-editorWarning-foreground', '#cca700'],
  blocked: ['--vscode-charts-red', '#f14c4c'],
  message: ['--vscode-charts-orange', '#d18616'],
  selection: ['--vscode-focusBorder', '#0078d4'],
  /** Search matches: the editor's find-match highlight. */
  match: ['--vscode-editor-findMatchBackground', '#9e6a03'],
  /** Set only by high-contrast themes: then lanes are edged with it. */
  contrast: ['--vscode-contrastBorder', ''],
} as const;

export type PaletteName = keyof typeof NAMED;

export interface Palette extends Record<PaletteName, string> {
  /** Indexed by CallClass. */
  readonly cls: readonly string[];
  readonly font: string;
}

/** The theme variable and fallback for each call class, for the legend (CSS) and the canvas (resolved). */
export function classColorVar(cls: number): string {
  const [name, fallback] = CLASS_VARS[cls] ?? CLASS_VARS[0] ?? ['', '#888'];
  return `var(${name}, ${fallback})`;
}

export function classLabel(cls: number): string {
  return CALL_CLASS_NAMES[cls] ?? 'other';
}

/**
 * Resolves the palette from computed style (`get` returns a custom property's value, "" when unset).
 * Canvas cannot read CSS variables, so this runs on connect and whenever the theme changes.
 */
export function resolvePalette(get: (name: string) => string): Palette {
  const pick = ([name, fallback]: readonly [string, string]): string => get(name).trim() || fallback;
  // (contrast has no fallback: '' means "not a high-contrast theme".)
  const named = Object.fromEntries(Object.entries(NAMED).map(([k, v]) => [k, pick(v)])) as Record<
    PaletteName,
    string
  >;
  const family = get('--vscode-font-family').trim() || 'system-ui, sans-serif';
  return { ...named, cls: CLASS_VARS.map(pick), font: family };
}
