import type { Diagnostic } from 'vscode-languageserver';
import type { Finding } from '../session/session-api';
import { findingDiagnostics, type DiagnosticOptions } from './finding-diagnostics';

/** Sends one file's full diagnostic list (LSP replaces, it never appends). */
export type PublishDiagnostics = (uri: string, diagnostics: Diagnostic[]) => void;

/**
 * The findings of the current (or last) run as diagnostics, per file. A run's findings stay until the
 * next run starts or the user clears them; each new finding republishes only the files it touches.
 */
export class DiagnosticStore {
  private readonly byUri = new Map<string, Diagnostic[]>();
  private count = 0;

  constructor(
    private readonly publish: PublishDiagnostics,
    private readonly options: DiagnosticOptions,
  ) {}

  get findingCount(): number {
    return this.count;
  }

  add(finding: Finding): void {
    this.count++;
    const touched = new Set<string>();
    for (const { uri, diagnostic } of findingDiagnostics(finding, this.options)) {
      const list = this.byUri.get(uri) ?? [];
      list.push(diagnostic);
      this.byUri.set(uri, list);
      touched.add(uri);
    }
    for (const uri of touched) this.publish(uri, [...(this.byUri.get(uri) ?? [])]);
  }

  /** Number of files that have at least one diagnostic. */
  get fileCount(): number {
    return this.byUri.size;
  }

  clear(): void {
    for (const uri of this.byUri.keys()) this.publish(uri, []);
    this.byUri.clear();
    this.count = 0;
  }
}
