import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** What the driver needs of the timeline store: change notifications. */
export interface ChangeSource {
  onChange(listener: () => void): () => void;
}

/**
 * The redraw plumbing a canvas component needs, as a Lit controller: at most one animation frame per burst
 * of store changes, a callback when the element is resized, and nothing left behind when the element is
 * detached (no pending frame, no store listener, no resize observer). Reattached, it subscribes again and
 * redraws: an element moved in the DOM keeps drawing.
 */
export class FrameDriver implements ReactiveController {
  private frame = 0;
  private source: ChangeSource | undefined;
  private unsubscribe: (() => void) | undefined;
  private resize: ResizeObserver | undefined;
  private connected = false;

  constructor(
    private readonly host: ReactiveControllerHost & Element,
    private readonly draw: () => void,
    /** Called on a resize instead of a plain redraw (e.g. to measure first); it should schedule(). */
    private readonly resized?: () => void,
  ) {
    host.addController(this);
  }

  /** Follow this store's changes (or none). */
  watch(source: ChangeSource | undefined): void {
    if (source === this.source) return;
    this.source = source;
    if (this.connected) this.subscribe();
  }

  /** Draw at the next animation frame (once, however often it is asked before then). */
  schedule(): void {
    if (this.frame !== 0 || !this.connected) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  hostConnected(): void {
    this.connected = true;
    this.resize = new ResizeObserver(() => (this.resized ? this.resized() : this.schedule()));
    this.resize.observe(this.host);
    this.subscribe();
    this.schedule();
  }

  hostDisconnected(): void {
    this.connected = false;
    this.resize?.disconnect();
    this.resize = undefined;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.frame !== 0) cancelAnimationFrame(this.frame);
    this.frame = 0;
  }

  private subscribe(): void {
    this.unsubscribe?.();
    this.unsubscribe = this.source?.onChange(() => this.schedule());
  }
}
