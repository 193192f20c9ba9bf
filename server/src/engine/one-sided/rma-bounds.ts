/**
 * One-sided accesses whose arguments MPI forbids for their size, judged at ENTER (Open MPI fails the call, with
 * MPI_ERR_RMA_RANGE or a truncation error, and its default handler ends the job in it; MPICH 4.0 on one host does
 * not check the range, and the access reads or writes past the target's part):
 * - `invalid-argument`: the target bytes (target_disp × the target's displacement unit, then target_count ×
 *   target_datatype) reach before the start or past the end of the target's part of the window, as the target
 *   gave its size to MPI_Win_create / MPI_Win_allocate (dynamic windows have no size: not judged);
 * - `count-mismatch`: MPI_Put, MPI_Get and MPI_Accumulate move data as a send and a receive would, and the data
 *   must fit without truncation: origin bytes more than the target's (put, accumulate) or target bytes more than
 *   the origin's (get).
 * One finding per window, function and check, with the first such call of each rank.
 *
 * The target's size and unit come from its own MPI_Win_create record, which the analyzer may read after the
 * origin's access (each rank streams on its own): an access whose target is not known yet is parked on the
 * window until the target's creating call is read (`memberKnown`), a few per window and target.
 */
import type { DtypeInfo } from '../model/datatypes';
import type { CallEnter, EngineFinding, RawLocation } from '../model/types';
import type { WinInfo } from './windows';

export interface BoundsArgs {
  readonly disp: number;
  readonly count: number;
  readonly dtype: DtypeInfo | undefined;
  /** Put, get and accumulate: the origin's count and datatype. */
  readonly origin: { readonly count: number; readonly dtype: DtypeInfo | undefined } | undefined;
  /** A get: the data goes from the target to the origin. */
  readonly reads: boolean;
}

/** Who made an access: what a finding's location needs, kept past the call's batch. */
interface Caller {
  readonly rank: number;
  readonly site: number;
  readonly fn: string;
}

/** Accesses parked per window and target, at most this many each (only a rank's first per function is reported). */
const PARKED_MAX = 16;

export class AccessBounds {
  private readonly calls = new Map<string, { win: WinInfo; fn: string; locations: RawLocation[] }>();
  /** Accesses whose target's creating call is not read yet, by window and target rank. */
  private readonly parked = new Map<WinInfo, Map<number, { by: Caller; a: BoundsArgs }[]>>();

  check(e: CallEnter, win: WinInfo, target: number, a: BoundsArgs): void {
    const t = a.dtype;
    if (t === undefined || a.count <= 0 || t.size <= 0) return;
    const by: Caller = { rank: e.rank, site: e.site, fn: e.fn.name };
    if (win.dispUnit.has(target)) this.reach(by, win, target, a);
    else this.park(by, win, target, a);
    const o = a.origin;
    if (o === undefined || o.dtype === undefined || o.count < 0) return;
    const originBytes = o.count * o.dtype.size;
    const targetBytes = a.count * t.size;
    const sent = a.reads ? targetBytes : originBytes;
    const room = a.reads ? originBytes : targetBytes;
    if (sent > room)
      this.note(
        a.reads ? 'fit-get' : 'fit',
        by,
        win,
        `${by.fn} moves ${sent} bytes into ${room} (${a.reads ? 'origin' : 'target'})`,
      );
  }

  /** The target's creating call was read: judge the accesses parked for it. */
  memberKnown(win: WinInfo, rank: number): void {
    const m = this.parked.get(win);
    const list = m?.get(rank);
    if (m === undefined || list === undefined) return;
    m.delete(rank);
    if (m.size === 0) this.parked.delete(win);
    for (const p of list) this.reach(p.by, win, rank, p.a);
  }

  private park(by: Caller, win: WinInfo, target: number, a: BoundsArgs): void {
    let m = this.parked.get(win);
    if (m === undefined) this.parked.set(win, (m = new Map<number, { by: Caller; a: BoundsArgs }[]>()));
    let list = m.get(target);
    if (list === undefined) m.set(target, (list = []));
    if (list.length < PARKED_MAX) list.push({ by, a });
  }

  /** The target bytes against the target's part of the window (a dynamic window has no size: not judged). */
  private reach(by: Caller, win: WinInfo, target: number, a: BoundsArgs): void {
    const t = a.dtype;
    const size = win.size.get(target);
    const unit = win.dispUnit.get(target);
    if (t === undefined || size === undefined || unit === undefined) return;
    const lo = a.disp * unit + t.trueLb;
    const hi = lo + (a.count - 1) * t.extent + t.trueExtent;
    if (lo < 0 || hi > size)
      this.note(
        'outside',
        by,
        win,
        `${by.fn} reaches bytes ${lo} to ${hi} of rank ${target}'s part of the window, which has ${size} byte${size === 1 ? '' : 's'}`,
      );
  }

  private note(check: string, by: Caller, win: WinInfo, detail: string): void {
    const key = `${check}|${win.id}|${by.fn}`;
    let c = this.calls.get(key);
    if (c === undefined) this.calls.set(key, (c = { win, fn: by.fn, locations: [] }));
    if (!c.locations.some((l) => l.rank === by.rank))
      c.locations.push({ rank: by.rank, site: by.site, call: by.fn, detail });
  }

  findings(): EngineFinding[] {
    const out: EngineFinding[] = [];
    for (const [key, c] of this.calls) {
      const locations = [...c.locations].sort((a, b) => a.rank - b.rank);
      const ranks = locations.map((l) => l.rank).join(',');
      const who = `Rank${locations.length > 1 ? 's' : ''} ${ranks}`;
      const check = key.split('|')[0];
      if (check === 'outside')
        out.push({
          kind: 'invalid-argument',
          severity: 'error',
          message:
            `${who} call${locations.length > 1 ? '' : 's'} ${c.fn} on ${c.win.name} with a target displacement, count and datatype that reach outside the target's part of the window ` +
            '(its size as given to MPI_Win_create or MPI_Win_allocate): MPI may fail the access (MPI_ERR_RMA_RANGE), or read or write whatever memory lies past that part (MPICH on one host). ' +
            'Keep target_disp × disp_unit + the span of target_count × target_datatype within the target window.',
          locations,
        });
      else
        out.push({
          kind: 'count-mismatch',
          severity: 'error',
          message:
            `${who} call${locations.length > 1 ? '' : 's'} ${c.fn} on ${c.win.name} with more data than ${check === 'fit-get' ? 'the origin buffer' : 'the target buffer'} holds: ` +
            `${check === 'fit-get' ? 'target_count × target_datatype exceeds origin_count × origin_datatype' : 'origin_count × origin_datatype exceeds target_count × target_datatype'}, ` +
            'a truncation MPI does not allow in one-sided communication. Make the origin and target counts and datatypes describe the same data.',
          locations,
        });
    }
    this.calls.clear();
    return out;
  }
}
