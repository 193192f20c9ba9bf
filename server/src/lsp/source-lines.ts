import { readFileSync } from 'node:fs';
import type { LineText } from './finding-diagnostics';

/**
 * Reads source lines from disk so a diagnostic can cover the code on its line. Files are read once per
 * run (a job touches few files) and the cache is dropped between runs, since the user edits in between.
 */
export class SourceLines {
  private readonly files = new Map<string, readonly string[] | undefined>();

  readonly lineText: LineText = (file, line) => {
    if (!this.files.has(file)) {
      let lines: string[] | undefined;
      try {
        lines = readFileSync(file, 'utf8').split(/\r?\n/);
      } catch {
        lines = undefined;
      }
      this.files.set(file, lines);
    }
    return this.files.get(file)?.[line - 1];
  };

  clear(): void {
    this.files.clear();
  }
}
