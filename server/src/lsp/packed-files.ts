import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
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
 * Each block is stored deflated (raw deflate, level 1; the page inflates it with the browser's
 * DecompressionStream): in code-server the page's fetch crosses the workbench's resource relay, which moved the
 * 7.1 MB of a million-event trace's columns in ~0.8–1.1 s, the longest hop of an opening from the index; deflated
 * they are ~3.5× smaller (1.50 → 0.43 MB for a 64-rank halo trace's index), for ~10 ms of deflate per MB here.
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
   * Appends a data batch's columns as one deflated block (packed-columns.ts; `packed` when the batch has it);
   * returns the batch without them and where its block is (`bytes`: the deflated length). A reset has no
   * block (bytes 0).
   */
  write(message: TimelineMessage): { header: TimelineMessage; offset: number; bytes: number } {
    if (message.type !== 'data') return { header: message, offset: this.end, bytes: 0 };
    // A batch read from the trace's index (trace-index.ts) comes packed already.
    const block = deflateRawSync(new Uint8Array(message.packed ?? packBlock(message)), { level: 1 });
    const bytes = block.byteLength;
    // Written before the batch is announced: the reader may read the block as soon as it hears of it.
    writeSync(this.fd, block, 0, bytes, this.end);
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
