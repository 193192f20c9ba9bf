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
  // The server runs the analyzer of every job started from the editor: the same young generation as the
  // CLI's (bin/mpiscope.js's shebang), since the engine's short-lived objects per call otherwise cost
  // about twice the scavenges (server/src/engine/README.md, "a bigger young generation").
  const youngGeneration = '--max-semi-space-size=32';
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc, options: { execArgv: [youngGeneration] } },
    debug: {
      module,
      transport: TransportKind.ipc,
      options: { execArgv: [youngGeneration, '--nolazy', '--inspect=6019'] },
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
