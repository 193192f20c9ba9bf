/**
 * The language server process (dist/server.js), started by the extension over node IPC. The only
 * place that creates the real connection; everything else takes one.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { createServer } from './server';
import { replayTrace } from '../session/replay';
import { startSession } from './session-factory';
import { openIndexedTimeline } from '../timeline/trace-index';

const connection = createConnection(ProposedFeatures.all);
// dist/server.js sits next to the docs folder of the installed extension (…/dist/../docs/findings).
const docsBase = pathToFileURL(join(__dirname, '..', 'docs', 'findings')).toString();
const server = createServer(connection, {
  startSession,
  docsBase,
  replayTrace: async (path) => (await replayTrace(path)).result,
  traceTimeline: async (path, onMessage) => {
    const t = await openIndexedTimeline(path, onMessage);
    if (!t.fromIndex && t.why !== undefined)
      connection.console.log(
        `${path}: timeline decoded (${t.why})${t.indexWritten ? '; index written for the next opening' : ''}`,
      );
    return {
      fromIndex: t.fromIndex,
      findings: async () => {
        const f = await t.findings();
        return { report: f.result, messages: f.messages };
      },
    };
  },
});
connection.onShutdown(() => server.dispose());
connection.listen();
