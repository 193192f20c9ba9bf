import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** What the driver needs of the timeline store: change notifications. */
export interface ChangeSource {
  onChange(listener: () => void): () => void;
  /**
   * The least time between two frames drawn for changes, in ms (0 or absent: a frame for every burst). A
   * trace being loaded asks for a few frames a second: its batches come as fast as they are decoded, and a
   * frame for each (drawn on the thread the webview shares with the workbench, which is also passing the
   * next batches on) made the load 2 s slower.
   */
  readonly changeInterval?: number;
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
  /** When the last frame for a change was asked for (performance.now()), and a change waiting for its turn. */
  private lastChange = -Infinity;
  private waiting: ReturnType<typeof setTimeout> | undefined;
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
    clearTimeout(this.waiting);
    this.waiting = undefined;
  }

  private subscribe(): void {
    this.unsubscribe?.();
    this.unsubscribe = this.source?.onChange(() => this.changed());
  }

  /** A change's frame, at once or when the source's interval since the last one has passed. */
  private changed(): void {
    const now = performance.now();
    const wait = (this.source?.changeInterval ?? 0) - (now - this.lastChange);
    if (wait <= 0) {
      // Also when a change is waiting: the source stopped pacing (the job ended), its frame is due now.
      clearTimeout(this.waiting);
      this.waiting = undefined;
      this.lastChange = now;
      this.schedule();
      return;
    }
    if (this.waiting !== undefined) return;
    this.waiting = setTimeout(() => {
      this.waiting = undefined;
      if (this.connected) this.changed();
    }, wait);
  }
}
