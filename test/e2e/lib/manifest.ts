// The manifest of the .vsix under test, so that the checks find commands by what they do rather than
// by a title the extension may reword, and always those of the package actually installed.
import { execFileSync } from 'node:child_process';

export interface ContributedCommand {
  readonly command: string;
  readonly title: string;
  readonly category?: string;
}

export function contributedCommands(vsix: string): ContributedCommand[] {
  const text = execFileSync('unzip', ['-p', vsix, 'extension/package.json'], { encoding: 'utf8' });
  const manifest = JSON.parse(text) as { contributes?: { commands?: ContributedCommand[] } };
  return manifest.contributes?.commands ?? [];
}

/** The title as the command palette shows it: "Category: Title". */
export function paletteTitle(c: ContributedCommand): string {
  return c.category ? `${c.category}: ${c.title}` : c.title;
}
