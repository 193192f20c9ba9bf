// The manifest of the .vsix under test, so that the checks find commands by what they do rather than
// by a title the extension may reword, and always those of the package actually installed.
import { execFileSync } from 'node:child_process';

export interface ContributedCommand {
  readonly command: string;
  readonly title: string;
  readonly category?: string;
}

interface Manifest {
  contributes?: {
    commands?: ContributedCommand[];
    menus?: { commandPalette?: { command: string; when?: string }[] };
  };
}

export function contributedCommands(vsix: string): ContributedCommand[] {
  const text = execFileSync('unzip', ['-p', vsix, 'extension/package.json'], { encoding: 'utf8' });
  return (JSON.parse(text) as Manifest).contributes?.commands ?? [];
}

/** The commands the palette always lists: those without a `when` clause in menus.commandPalette
 * (a clause such as `debugType == mpi` hides a command outside a debug session). */
export function paletteCommands(vsix: string): ContributedCommand[] {
  const text = execFileSync('unzip', ['-p', vsix, 'extension/package.json'], { encoding: 'utf8' });
  const manifest = JSON.parse(text) as Manifest;
  const conditional = new Set(
    (manifest.contributes?.menus?.commandPalette ?? [])
      .filter((m) => m.when !== undefined)
      .map((m) => m.command),
  );
  return (manifest.contributes?.commands ?? []).filter((c) => !conditional.has(c.command));
}

/** The title as the command palette shows it: "Category: Title". */
export function paletteTitle(c: ContributedCommand): string {
  return c.category ? `${c.category}: ${c.title}` : c.title;
}
