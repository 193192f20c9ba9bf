import { createServer, type Server, type Socket } from 'node:net';
import { MpiDebugSession, type MpiDebugSessionOptions } from './mpi-debug-session';

export interface DapServer {
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves the MPI debug adapter on a loopback port, one DebugSession per connection. VS Code connects
 * through a DebugAdapterServer descriptor; the tests connect with DebugClient.start(port).
 */
export function serveDebugAdapter(options: MpiDebugSessionOptions, port = 0): Promise<DapServer> {
  const host = '127.0.0.1';
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    const session = new MpiDebugSession(options);
    socket.on('close', () => {
      sockets.delete(socket);
      session.clientGone();
    });
    // Server mode: the session must not end the process when the client disconnects.
    session.setRunAsServer(true);
    session.start(socket, socket);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        reject(new Error('The debug adapter server has no TCP address.'));
        return;
      }
      resolve({
        host,
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
