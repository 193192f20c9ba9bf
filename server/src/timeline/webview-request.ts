import { realpathSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import type { WebviewRequest } from './timeline-protocol';

/**
 * The webview is a different trust domain (its content comes from the job: paths and names a hostile binary
 * chose): every message it posts is checked here before the host acts on it. A `reveal` opens a file only when
 * its real path (symbolic links followed) is inside one of the workspace folders, so a crafted message cannot
 * make the editor open ~/.ssh/id_rsa or /etc/shadow. Returns the request, or why it was refused.
 */
export function parseWebviewRequest(
  value: unknown,
  workspaceFolders: readonly string[],
): WebviewRequest | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  const v = value as { type?: unknown; file?: unknown; line?: unknown };
  if (v.type === 'ready') return { type: 'ready' };
  if (v.type === 'loaded') return { type: 'loaded' };
  if (v.type === 'block') {
    // Where in the host's columns file: the host reads only from the file it was told of, and checks the end.
    const { offset, bytes } = value as { offset?: unknown; bytes?: unknown };
    if (!isCount(offset) || !isCount(bytes) || bytes === 0 || bytes > MAX_BLOCK)
      return `a block needs an offset and a length of 1 to ${MAX_BLOCK} bytes`;
    return { type: 'block', offset, bytes };
  }
  if (v.type !== 'reveal') return `unknown request type ${JSON.stringify(v.type) ?? 'undefined'}`;
  if (typeof v.file !== 'string' || v.file === '' || v.file.length > 4096 || v.file.includes('\0'))
    return 'a reveal needs a file path';
  if (!isAbsolute(v.file)) return `${v.file} is not an absolute path`;
  if (typeof v.line !== 'number' || !Number.isInteger(v.line) || v.line < 1 || v.line > 10_000_000)
    return 'a reveal needs a line number';
  const real = realOrUndefined(v.file);
  if (real === undefined) return `${v.file} does not exist`;
  const inside = workspaceFolders.some((folder) => {
    const root = realOrUndefined(folder);
    if (root === undefined) return false;
    const rel = relative(root, real);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  });
  if (!inside) return `${v.file} is outside the workspace`;
  return { type: 'reveal', file: real, line: v.line };
}

/** The largest block a page may ask for (a batch's block is well under 1 MiB). */
const MAX_BLOCK = 64 * 1024 * 1024;

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
