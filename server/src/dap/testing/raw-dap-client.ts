import { connect, type Socket } from 'node:net';
import type { DebugProtocol } from '@vscode/debugprotocol';

/**
 * A bare DAP client for what DebugClient cannot do: answer reverse requests (startDebugging) and drop
 * the connection without disconnecting.
 */
export class RawDapClient {
  readonly socket: Socket;
  private seq = 1;
  private buffer = Buffer.alloc(0);
  private readonly pending = new Map<number, (r: DebugProtocol.Response) => void>();
  /** Answers the adapter's reverse requests; the default refuses them. */
  onReverseRequest: (request: DebugProtocol.Request) => { success: boolean; body?: unknown } = () => ({
    success: false,
  });

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (data: Buffer) => this.read(data));
  }

  request(command: string, args: object = {}): Promise<DebugProtocol.Response> {
    const seq = this.seq++;
    this.write({ type: 'request', seq, command, arguments: args });
    return new Promise((resolve) => this.pending.set(seq, resolve));
  }

  private write(message: object): void {
    const json = JSON.stringify(message);
    this.socket.write(`Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`);
  }

  private read(data: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, data]);
    for (;;) {
      const head = this.buffer.indexOf('\r\n\r\n');
      if (head < 0) return;
      const length = Number(/Content-Length: (\d+)/.exec(this.buffer.subarray(0, head).toString())?.[1]);
      if (this.buffer.length < head + 4 + length) return;
      const message = JSON.parse(
        this.buffer.subarray(head + 4, head + 4 + length).toString(),
      ) as DebugProtocol.ProtocolMessage;
      this.buffer = this.buffer.subarray(head + 4 + length);
      this.dispatch(message);
    }
  }

  private dispatch(message: DebugProtocol.ProtocolMessage): void {
    if (message.type === 'response') {
      const response = message as DebugProtocol.Response;
      this.pending.get(response.request_seq)?.(response);
      this.pending.delete(response.request_seq);
    } else if (message.type === 'request') {
      const request = message as DebugProtocol.Request;
      const answer = this.onReverseRequest(request);
      this.write({
        type: 'response',
        seq: this.seq++,
        request_seq: request.seq,
        command: request.command,
        ...answer,
      });
    }
  }
}
