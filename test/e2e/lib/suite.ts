/** What every check needs to know about the suite it runs in. */
export interface Suite {
  readonly repoRoot: string;
  readonly serverUrl: string;
  readonly vsix: string;
}
