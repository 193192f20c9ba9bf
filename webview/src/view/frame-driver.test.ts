import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { FrameDriver, type ChangeSource } from './frame-driver';

/** Animation frames and resize observers, driven by hand. */
class FakeBrowser {
  frames = new Map<number, () => void>();
  observers = 0;
  private next = 1;
  install(): void {
    globalThis.requestAnimationFrame = (cb: FrameRequestCallback): number => {
      const id = this.next++;
      this.frames.set(id, () => cb(0));
      return id;
    };
    globalThis.cancelAnimationFrame = (id: number): void => void this.frames.delete(id);
    const count = (d: number): void => void (this.observers += d);
    class Observer {
      observe(): void {
        count(1);
      }
      disconnect(): void {
        count(-1);
      }
      unobserve(): void {}
    }
    Object.assign(globalThis, { ResizeObserver: Observer });
  }
  runFrames(): void {
    const due = [...this.frames.values()];
    this.frames.clear();
    for (const f of due) f();
  }
}

class Store implements ChangeSource {
  listeners = new Set<() => void>();
  changeInterval = 0;
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  change(): void {
    for (const l of this.listeners) l();
  }
}

function host(): ReactiveControllerHost & Element & { controllers: ReactiveController[] } {
  const controllers: ReactiveController[] = [];
  return {
    controllers,
    addController: (c: ReactiveController) => controllers.push(c),
  } as unknown as ReactiveControllerHost & Element & { controllers: ReactiveController[] };
}

describe('frame driver', () => {
  const saved = {
    raf: globalThis.requestAnimationFrame,
    caf: globalThis.cancelAnimationFrame,
    ro: globalThis.ResizeObserver,
  };
  let browser: FakeBrowser;
  beforeEach(() => {
    browser = new FakeBrowser();
    browser.install();
  });
  afterEach(() => {
    globalThis.requestAnimationFrame = saved.raf;
    globalThis.cancelAnimationFrame = saved.caf;
    globalThis.ResizeObserver = saved.ro;
  });

  it('draws once per burst of store changes', () => {
    let draws = 0;
    const h = host();
    const d = new FrameDriver(h, () => draws++);
    const store = new Store();
    d.watch(store);
    d.hostConnected();
    browser.runFrames();
    assert.equal(draws, 1, 'the first frame after connecting');
    store.change();
    store.change();
    store.change();
    assert.equal(browser.frames.size, 1);
    browser.runFrames();
    assert.equal(draws, 2);
  });

  it("draws a paced source's changes at most once per its interval, the last change included", () => {
    let now = 1000;
    mock.method(performance, 'now', () => now);
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      let draws = 0;
      const d = new FrameDriver(host(), () => draws++);
      const store = new Store();
      store.changeInterval = 400;
      d.watch(store);
      d.hostConnected();
      browser.runFrames();
      assert.equal(draws, 1);
      store.change();
      browser.runFrames();
      assert.equal(draws, 2, 'the first change after a quiet spell is drawn at once');
      for (const t of [100, 200, 300]) {
        now = 1000 + t;
        mock.timers.tick(100);
        store.change();
        browser.runFrames();
      }
      assert.equal(draws, 2, 'changes inside the interval wait');
      now = 1400;
      mock.timers.tick(100);
      browser.runFrames();
      assert.equal(draws, 3, 'and are drawn when it has passed');
      // The source stops pacing (the trace's last batch ended the job) while a change waits: drawn at once.
      now = 1450;
      store.change();
      browser.runFrames();
      assert.equal(draws, 3, 'waiting');
      store.changeInterval = 0;
      now = 1460;
      store.change();
      browser.runFrames();
      assert.equal(draws, 4);
      mock.timers.tick(400);
      browser.runFrames();
      assert.equal(draws, 4, 'the waiting change was drawn with it, not again');
      // Detached while a change waits: nothing fires later.
      store.changeInterval = 400;
      now = 1500;
      store.change();
      d.hostDisconnected();
      mock.timers.tick(1000);
      assert.equal(browser.frames.size, 0);
    } finally {
      mock.timers.reset();
      mock.restoreAll();
    }
  });

  it('leaves nothing behind when detached, and draws again when reattached', () => {
    let draws = 0;
    const h = host();
    const d = new FrameDriver(h, () => draws++);
    const store = new Store();
    d.watch(store);
    d.hostConnected();
    store.change();
    d.hostDisconnected();
    assert.equal(browser.frames.size, 0, 'the pending frame is cancelled');
    assert.equal(store.listeners.size, 0, 'the store listener is removed');
    assert.equal(browser.observers, 0, 'the resize observer is disconnected');
    store.change();
    assert.equal(browser.frames.size, 0, 'a detached element schedules nothing');
    d.hostConnected();
    browser.runFrames();
    store.change();
    browser.runFrames();
    assert.equal(draws, 2, 'reattached, it follows the store again');
    assert.equal(store.listeners.size, 1);
  });

  it('moves to another store without listening to the old one', () => {
    const d = new FrameDriver(host(), () => undefined);
    const a = new Store();
    const b = new Store();
    d.hostConnected();
    d.watch(a);
    d.watch(b);
    assert.equal(a.listeners.size, 0);
    assert.equal(b.listeners.size, 1);
  });
});
