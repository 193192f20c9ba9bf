/**
 * A message that can never be received beside a receive that can never be satisfied, whose envelopes differ
 * in one or two of (tag, communicator, source): the likely bug is the mismatch, not the hang or the leak it
 * causes. Asked for the receives a deadlock holds forever (deadlock-report.ts) and for those still pending at
 * the end of a run that completed (unmatched.ts); never about a receive that could still be matched, so a
 * receive matched later in the run by another send is never one of them.
 */
import { describeOp, ranksName, tagName } from '../model/describe';
import { peerWorld, peersOf } from '../model/comms';
import type { RecvOp, SendOp } from '../model/ops';
import type { RankTrack } from '../model/rank-track';
import type { EngineFinding, RawLocation } from '../model/types';
import { ANY_SOURCE, ANY_TAG } from '../model/types';
import { addTo } from '../model/group-by';

/** What of the envelope keeps a send from a receive. */
export interface EnvelopeDiff {
  readonly tag: boolean;
  readonly comm: boolean;
  readonly source: boolean;
}

export interface MismatchPair {
  readonly send: SendOp;
  readonly recv: RecvOp;
  readonly diff: EnvelopeDiff;
}

/** "tag", "communicator and source"… */
export function diffName(d: EnvelopeDiff): string {
  const parts = [d.tag ? 'tag' : '', d.comm ? 'communicator' : '', d.source ? 'source' : ''].filter(
    (p) => p !== '',
  );
  return parts.length === 2 ? `${parts[0]} and ${parts[1]}` : parts.join(', ');
}

function count(d: EnvelopeDiff): number {
  return (d.tag ? 1 : 0) + (d.comm ? 1 : 0) + (d.source ? 1 : 0);
}

/**
 * How `s` differs from what `r` accepts, or undefined when it is no plausible twin: another destination, a
 * communicator on which the sender could not be named, all three parts different, or a source that differs
 * while the named source could still send (another rank's message is then as likely meant for a later
 * receive) or on a rank that also receives from MPI_ANY_SOURCE (a wildcard may have taken the named source's
 * message). A send that `r` accepts has no difference: it is not a mismatch (the library pairs them).
 */
export function envelopeDiff(s: SendOp, r: RecvOp, tracks: readonly RankTrack[]): EnvelopeDiff | undefined {
  if (s.dest !== r.rank) return undefined;
  const comm = s.comm !== r.comm;
  if (comm && !peersOf(r.comm, r.rank).includes(s.rank)) return undefined;
  const tag = r.tag !== ANY_TAG && s.tag !== r.tag;
  let source = false;
  if (r.source !== ANY_SOURCE) {
    const named = peerWorld(r.comm, r.rank, r.source);
    if (named !== s.rank) {
      const t = named === undefined ? undefined : tracks[named];
      // The named source can never send to it: the receiving rank itself, or a rank that ended or finalizes.
      const never = named === r.rank || t === undefined || t.ended !== undefined || t.inFinalize;
      if (!never) return undefined;
      // A rank that also receives from MPI_ANY_SOURCE may have had the named source's messages taken by a
      // wildcard receive, leaving another rank's message over: a message race (races.ts), not a wrong source.
      if ((tracks[r.rank]?.wildcards ?? 0) > 0) return undefined;
      source = true;
    }
  }
  const d = { tag, comm, source };
  const n = count(d);
  return n === 0 || n === 3 ? undefined : d;
}

/**
 * Pairs each receive (in the order given) with the unreceived send it most likely meant: fewest differences,
 * then the oldest. A send pairs with one receive at most.
 */
export function pairMismatches(
  recvs: readonly RecvOp[],
  sends: readonly SendOp[],
  tracks: readonly RankTrack[],
): MismatchPair[] {
  const used = new Set<SendOp>();
  const out: MismatchPair[] = [];
  for (const r of recvs) {
    let best: MismatchPair | undefined;
    for (const s of sends) {
      if (used.has(s)) continue;
      const diff = envelopeDiff(s, r, tracks);
      if (diff === undefined) continue;
      if (
        best === undefined ||
        count(diff) < count(best.diff) ||
        (count(diff) === count(best.diff) && s.order < best.send.order)
      )
        best = { send: s, recv: r, diff };
    }
    if (best !== undefined) {
      used.add(best.send);
      out.push(best);
    }
  }
  return out;
}

function here(op: SendOp | RecvOp, detail: string): RawLocation {
  return { rank: op.rank, site: op.site, call: op.fn.name, detail };
}

/**
 * One finding per kind of difference and pair of functions: a mismatch in a loop, or on every rank of a ring,
 * is one mistake, with a location per end. `deadlock`: the receives are held by a deadlock (an error), else
 * still pending at the end of a completed run.
 */
export function mismatchFindings(pairs: readonly MismatchPair[], deadlock: boolean): EngineFinding[] {
  const groups = new Map<string, MismatchPair[]>();
  for (const p of pairs) {
    const key = `${diffName(p.diff)}|${p.send.fn.name}|${p.recv.fn.name}`;
    addTo(groups, key, p);
  }
  const out: EngineFinding[] = [];
  for (const group of groups.values()) {
    // By receiving rank, then its program order: the same text whatever order the ranks' streams came in.
    const ps = [...group].sort((a, b) => a.recv.rank - b.recv.rank || a.recv.order - b.recv.order);
    const p = ps[0] as MismatchPair;
    const what = diffName(p.diff);
    const verb = p.recv.kind === 'recv' ? 'receive' : 'probe';
    const outcome = deadlock
      ? `rank ${p.recv.rank} waits for it forever`
      : `both were still pending at the end of the run`;
    const more =
      ps.length > 1
        ? ` (${ps.length} such pairs, ${ranksName([...new Set(ps.map((x) => x.recv.rank))].sort((a, b) => a - b))} receiving)`
        : '';
    const seen = new Set<string>();
    const locations: RawLocation[] = [];
    for (const x of ps) {
      for (const loc of [
        here(
          x.send,
          `${describeOp(x.send)}: never received (its ${what} ${count(x.diff) === 1 ? 'does' : 'do'} not match the ${verb})`,
        ),
        here(
          x.recv,
          `${describeOp(x.recv)}: never ${x.recv.kind === 'recv' ? 'satisfied' : 'answered'}; rank ${x.send.rank} sent ${tagName(x.send.tag)} on ${x.send.comm.name} with ${x.send.fn.name} instead`,
        ),
      ]) {
        const key = `${loc.rank}:${loc.site}`;
        if (seen.has(key)) continue;
        seen.add(key);
        locations.push(loc);
      }
    }
    out.push({
      kind: 'message-mismatch',
      severity: deadlock ? 'error' : 'warning',
      message: `The message rank ${p.send.rank} sent with ${describeOp(p.send)} is never received: its ${what} ${count(p.diff) === 1 ? 'does' : 'do'} not match rank ${p.recv.rank}'s ${describeOp(p.recv)}, and ${outcome}${more}. Make the send's and the ${verb}'s ${what} agree.`,
      locations,
    });
  }
  return out;
}
