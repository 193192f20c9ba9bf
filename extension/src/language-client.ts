import type * as vscode from 'vscode';
import {
  LanguageClient,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';

/**
 * Starts the mpiscope language server (dist/server.js, over node IPC). It hosts every MPI job, so the
 * other features talk to it through the client returned here.
 */
export async function activate(ctx: vscode.ExtensionContext): Promise<LanguageClient> {
  const module = ctx.asAbsolutePath('dist/server.js');
  // The server runs the analyzer of every job started from the editor: the same V8 flags as the CLI's
  // (bin/mpiscope.js's shebang): a bigger young generation, since the engine's short-lived objects per call
  // otherwise cost about twice the scavenges, and no V8 helper threads, which compete with the job's ranks
  // for the cores (server/src/engine/README.md, "V8's flags").
  const v8Flags = ['--max-semi-space-size=32', '--single-threaded'];
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc, options: { execArgv: v8Flags } },
    debug: {
      module,
      transport: TransportKind.ipc,
      options: { execArgv: [...v8Flags, '--nolazy', '--inspect=6019'] },
    },
  };
  const clientOptions: LanguageClientOptions = {
    // Hovers on C and C++ sources; diagnostics are pushed for any file a finding names.
    documentSelector: [
      { scheme: 'file', language: 'c' },
      { scheme: 'file', language: 'cpp' },
    ],
    diagnosticCollectionName: 'mpiscope',
  };
  const client = new LanguageClient('mpiscope', 'mpiscope', serverOptions, clientOptions);
  ctx.subscriptions.push(client);
  await client.start();
  return client;
}
