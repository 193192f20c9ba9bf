import type { SessionFactory } from '../dap/session-port';
import { UsageError } from '../session/session-api';

/**
 * Adapts the session of server/src/session to the port the language server and the debug adapter use.
 * The concrete session class has not landed yet; until it does, starting a job says so plainly.
 */
export const startSession: SessionFactory = () => {
  throw new UsageError('This build of mpiscope has no session runner yet (server/src/session); update the extension.');
};
