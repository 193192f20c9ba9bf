/**
 * One-sided accesses made with no access epoch open for their target: no MPI_Win_fence yet on the window, no
 * MPI_Win_lock of the target, no MPI_Win_lock_all, no MPI_Win_start. MPI forbids them and both Open MPI and MPICH
 * fail them with MPI_ERR_RMA_SYNC, so they are call-order findings (rma.ts decides, at ENTER: the default error
 * handler ends the job in that very call, and the shim sends the ENTER before forwarding it). After a fence the
 * epoch may have been closed by an MPI_MODE_NOSUCCEED fence, which the engine cannot tell: not judged.
 */
import type { EngineFinding, CallEnter, RawLocation } from '../model/types';
import type { WinInfo } from './windows';

export class OutsideEpochs {
  /** By window and function: call sites are return addresses, which differ between processes. */
  private readonly calls = new Map<string, RawLocation[]>();

  note(e: CallEnter, win: WinInfo, target: number): void {
    const key = `${win.id}|${e.fn.name}`;
    const locs = this.calls.get(key) ?? [];
    // The first such call of each rank is enough: MPI usually ends the job on it.
    if (!locs.some((l) => l.rank === e.rank))
      locs.push({
        rank: e.rank,
        site: e.site,
        call: e.fn.name,
        detail: `${e.fn.name} to rank ${target} of ${win.name} outside any epoch`,
      });
    this.calls.set(key, locs);
  }

  /** One call-order finding per window and function, every rank that made such a call in it. */
  findings(): EngineFinding[] {
    const out: EngineFinding[] = [];
    for (const [key, unsorted] of this.calls) {
      const locations = [...unsorted].sort((a, b) => a.rank - b.rank);
      const [, fn] = key.split('|');
      const ranks = locations.map((l) => l.rank);
      out.push({
        kind: 'call-order',
        severity: 'error',
        message:
          `Rank${ranks.length > 1 ? 's' : ''} ${ranks.join(',')} call${ranks.length > 1 ? '' : 's'} ${fn ?? 'a one-sided access'} outside any access epoch of the window ` +
          '(no MPI_Win_fence, no MPI_Win_lock of that target or MPI_Win_lock_all, no MPI_Win_start before it): MPI fails it with MPI_ERR_RMA_SYNC. ' +
          'Open an epoch first: MPI_Win_fence on every rank, or MPI_Win_lock/MPI_Win_lock_all around the access.',
        locations,
      });
    }
    this.calls.clear();
    return out;
  }
}
