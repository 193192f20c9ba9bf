/** What every check needs to know about the suite it runs in. */
export interface Suite {
  readonly repoRoot: string;
  readonly serverUrl: string;
  readonly vsix: string;
  /** Removed at the end of the run: workspace copies, code-server's and Chromium's state. */
  readonly tmp: string;
}
