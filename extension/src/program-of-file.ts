import * as vscode from 'vscode';

export const MPI_DEBUG_TYPE = 'mpi';

/** The C or C++ file in the active editor, if any. */
export function activeSource(): vscode.Uri | undefined {
  const doc = vscode.window.activeTextEditor?.document;
  if (!doc || doc.uri.scheme !== 'file') return undefined;
  return doc.languageId === 'c' || doc.languageId === 'cpp' ? doc.uri : undefined;
}

/**
 * The executable `mpicc -g -O0 file.c -o file` makes: the source path without its extension. A path
 * that is a variable (tasks.json's "${file}") or has no C extension never maps to itself, so a build can
 * never overwrite its own source.
 */
export function programOf(source: string): string {
  if (source === '${file}') return '${fileDirname}/${fileBasenameNoExtension}';
  const stripped = source.replace(/\.(c|cc|cpp|cxx)$/, '');
  return stripped === source ? `${source}.out` : stripped;
}
