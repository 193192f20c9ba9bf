import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packTimeline } from '../timeline/packed-columns';
import type { TimelineMessage } from '../timeline/timeline-protocol';

/**
 * The files a trace's timeline columns are handed over in (mpiscope/traceTimeline): the extension host, on
 * the same machine as this server in every VS Code set-up (local, remote, code-server: the server is its
 * child), reads one and deletes it. A file because LSP is JSON-RPC: tens of MiB of numbers as text cost
 * more to write, parse and forward than the drawing of them. Files never read (an editor closed at once, the
 * extension host gone) are deleted when the server stops.
 */
export class PackedFiles {
  private readonly dirs = new Set<string>();

  /** Writes the columns of `messages`; returns the messages without them and the file holding them. */
  write(messages: readonly TimelineMessage[]): { headers: TimelineMessage[]; file: string } {
    const { headers, bytes } = packTimeline(messages);
    const dir = mkdtempSync(join(tmpdir(), 'mpiscope-timeline-'));
    this.dirs.add(dir);
    const file = join(dir, 'columns.bin');
    writeFileSync(file, new Uint8Array(bytes));
    return { headers, file };
  }

  dispose(): void {
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true });
    this.dirs.clear();
  }
}
