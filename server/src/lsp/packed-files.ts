import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { packBlock } from '../timeline/packed-columns';
import { emptyMessages, emptySpans, type TimelineMessage } from '../timeline/timeline-protocol';

/**
 * The files a trace's timeline columns are handed over in (mpiscope/traceTimeline): the extension host, on
 * the same machine as this server in every VS Code set-up (local, remote, code-server: the server is its
 * child), tells the trace editor's page where each batch's block is as it is announced (mpiscope/traceBatch);
 * the page fetches it as a webview resource, and the file goes when the editor closes.
 * A file because LSP is JSON-RPC: tens of MiB of numbers as text cost more to write, parse and forward than
 * the drawing of them. Files never read (the extension host gone) are deleted when the server stops.
 */
export class PackedFiles {
  private readonly dirs = new Set<string>();

  /**
   * A new file for one opening's batches, in a new folder under `parent` when the client names one (the trace
   * editor names a folder its webview may load resources from, so the page fetches the blocks itself), else
   * under the temp folder.
   */
  open(parent?: string): PackedWriter {
    const dir = mkdtempSync(join(parent ?? tmpdir(), 'mpiscope-timeline-'));
    this.dirs.add(dir);
    return new PackedWriter(join(dir, 'columns.bin'));
  }

  /** Closes a writer and deletes its file and folder (an opening that failed). */
  remove(writer: PackedWriter): void {
    writer.close();
    const dir = dirname(writer.file);
    rmSync(dir, { recursive: true, force: true });
    this.dirs.delete(dir);
  }

  dispose(): void {
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true });
    this.dirs.clear();
  }
}

export class PackedWriter {
  private readonly fd: number;
  private end = 0;

  constructor(readonly file: string) {
    this.fd = openSync(file, 'w');
  }

  /**
   * Appends a data batch's columns as one block (packed-columns.ts; `packed` when the batch has it); returns the batch without them and where
   * its block is. A reset has no block (bytes 0).
   */
  write(message: TimelineMessage): { header: TimelineMessage; offset: number; bytes: number } {
    if (message.type !== 'data') return { header: message, offset: this.end, bytes: 0 };
    // A batch read from the trace's index (trace-index.ts) comes packed already.
    const block = message.packed ?? packBlock(message);
    const bytes = block.byteLength;
    // Written before the batch is announced: the reader may read the block as soon as it hears of it.
    writeSync(this.fd, new Uint8Array(block), 0, bytes, this.end);
    const offset = this.end;
    this.end += bytes;
    // The header goes as JSON: the bytes are in the file, not in it.
    const { packed: _packed, ...header } = message;
    return { header: { ...header, spans: emptySpans(), messages: emptyMessages() }, offset, bytes };
  }

  private closed = false;

  /** Closes the file (once; a second call does nothing). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
