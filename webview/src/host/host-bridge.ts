import type { WebviewRequest } from '../../../server/src/timeline/timeline-protocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
}

declare global {
  /** Present only inside a VS Code webview; a standalone page has no host. */
  function acquireVsCodeApi(): VsCodeApi;
}

/**
 * The page's link to its host. Inside VS Code it is the webview API (callable once per page, hence kept
 * here); standalone (dev page, screenshots) requests are logged and kept for inspection.
 */
export class HostBridge {
  private readonly api: VsCodeApi | undefined;
  /** Requests sent, when there is no host (the dev page and its screenshot script read them). */
  readonly sent: WebviewRequest[] = [];

  constructor() {
    this.api = typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : undefined;
  }

  get standalone(): boolean {
    return this.api === undefined;
  }

  post(request: WebviewRequest): void {
    if (this.api !== undefined) this.api.postMessage(request);
    else this.sent.push(request);
  }

  /** Messages from the host arrive as window message events (the dev page posts to itself the same way). */
  onMessage(handler: (data: unknown) => void): void {
    window.addEventListener('message', (e: MessageEvent<unknown>) => handler(e.data));
  }
}
