/**
 * End of run: messages sent and never received, receives never satisfied. A lost message beside a receive that
 * probably meant it (other tag, communicator or source) is a message-mismatch with both ends
 * (`envelope-mismatch.ts`); the rest is one finding per sending call site and receiver.
 */
import { describeOp, ranksName, tagName } from '../model/describe';
import type { CheckContext } from '../model/check-context';
import type { Matcher } from './matching';
import type { RecvOp, SendOp } from '../model/ops';
import type { EngineFinding, RawLocation } from '../model/types';
import { ANY_SOURCE } from '../model/types';
import { mismatchFindings, pairMismatches } from './envelope-mismatch';
import { simulateMatching } from './simulate-matching';
import { addTo } from '../model/group-by';

/** What the end-of-run check reads: the model and the messages still in the matcher. */
export interface UnmatchedContext extends CheckContext {
  readonly matcher: Matcher;
}

function pendingReceives(st: UnmatchedContext): RecvOp[] {
  const out: RecvOp[] = [];
  for (const t of st.tracks) {
    const cur = t.cur?.recv;
    if (cur !== undefined && !cur.done && cur.kind !== 'probe' && t.cur?.exited !== true) out.push(cur);
    t.pendingRecvs(out);
  }
  return out.filter((r) => !r.reported && r.cancelCalled !== true).sort((a, b) => a.order - b.order);
}

function here(op: SendOp | RecvOp, detail: string): RawLocation {
  return { rank: op.rank, site: op.site, call: op.fn.name, detail };
}

export function unmatchedFindings(st: UnmatchedContext): EngineFinding[] {
  const findings: EngineFinding[] = [];
  // A send and a posted receive that the library pairs are in flight, not unmatched (a request never waited
  // for is a leak, reported as such).
  const inFlight = simulateMatching(st);
  const recvs = pendingReceives(st).filter((r) => !inFlight.has(r));
  const sends: SendOp[] = [];
  for (const s of st.matcher.unmatched()) {
    // A send MPI_Cancel was called on and whose request was freed: the cancel may have succeeded (MPICH cancels an
    // unmatched MPI_Issend); the program cannot tell, and no receive is owed to it.
    if (s.reported || inFlight.has(s) || s.cancelCalled === true) continue;
    sends.push(s);
  }
  // A lost message beside a receive that probably meant it (other tag, communicator or source): the mismatch,
  // with both ends.
  const pairs = pairMismatches(recvs, sends, st.tracks);
  findings.push(...mismatchFindings(pairs, false));
  const used = new Set<RecvOp | SendOp>(pairs.flatMap((p) => [p.send, p.recv]));
  const groups = new Map<string, SendOp[]>();
  for (const s of sends) {
    if (used.has(s)) continue;
    const key = `${s.rank}:${s.site}:${s.dest}`;
    addTo(groups, key, s);
  }
  // Sends no pending receive explains, by what was sent: one finding for the same mistake on several ranks or to
  // several ranks (a library that announces its end to every rank and never receives those messages would
  // otherwise give one finding per pair of ranks: n(n-1) of them).
  const lost = new Map<string, SendOp[][]>();
  for (const sends of groups.values()) {
    const s = sends[0] as SendOp;
    const n = sends.length === 1 ? 'a message' : `${sends.length} messages`;
    const tags = tagList(sends);
    // A pending receive whose envelope takes the message and still did not (a send MPI failed, a message the
    // library could not deliver): both ends in one finding.
    const recv = recvs.find(
      (r) =>
        !used.has(r) &&
        r.rank === s.dest &&
        r.comm === s.comm &&
        (r.source === ANY_SOURCE || r.source === s.srcCommRank),
    );
    if (recv !== undefined) {
      used.add(recv);
      findings.push({
        kind: 'unmatched-message',
        severity: 'warning',
        message: `Rank ${s.rank} sent ${n} (${tags}) with ${s.fn.name} to rank ${s.dest} that was never received, while rank ${s.dest}'s ${describeOp(recv)}, whose envelope accepts it, was never satisfied. Check what kept the message from arriving (an error of the send or of the receive).`,
        locations: [
          here(s, `${describeOp(s)}: never received`),
          here(recv, `${describeOp(recv)}: never satisfied`),
        ],
      });
      continue;
    }
    const key = `${s.fn.name}|${s.comm.id}|${tags}`;
    addTo(lost, key, sends);
  }
  for (const sets of lost.values()) findings.push(neverReceived(sets));
  const recvGroups = new Map<string, RecvOp[]>();
  for (const r of recvs) {
    if (used.has(r)) continue;
    const key = `${r.rank}:${r.site}:${r.source}`;
    addTo(recvGroups, key, r);
  }
  // The same by what was asked for: one finding for the same receive left unsatisfied on several ranks.
  const unsatisfied = new Map<string, RecvOp[][]>();
  for (const rs of recvGroups.values()) {
    const r = rs[0] as RecvOp;
    const key = `${r.fn.name}|${r.comm.id}|${r.tag}`;
    addTo(unsatisfied, key, rs);
  }
  for (const sets of unsatisfied.values()) findings.push(neverSatisfied(sets));
  return findings;
}

/** The finding of sends never received, of one function, communicator and tags: groups of (rank, site, dest). */
function neverReceived(sets: readonly SendOp[][]): EngineFinding {
  const s = (sets[0] as SendOp[])[0] as SendOp;
  const all = sets.flat();
  const tags = tagList(all);
  if (sets.length === 1) {
    const n = all.length === 1 ? 'a message' : `${all.length} messages`;
    return {
      kind: 'unmatched-message',
      severity: 'warning',
      message: `Rank ${s.rank} sent ${n} (${tags}) with ${s.fn.name} to rank ${s.dest} on ${s.comm.name} that rank ${s.dest} never received. Add the matching receive on rank ${s.dest}, or remove the send.`,
      locations: [here(s, `${describeOp(s)}: never received`)],
    };
  }
  // One location per sending rank and site, naming every destination.
  const bySite = new Map<string, SendOp[]>();
  for (const x of all) {
    const key = `${x.rank}:${x.site}`;
    addTo(bySite, key, x);
  }
  const ranks = [...new Set(all.map((x) => x.rank))].sort((a, b) => a - b);
  const dests = [...new Set(all.map((x) => x.dest))].sort((a, b) => a - b);
  const locations = [...bySite.values()]
    .sort((a, b) => (a[0] as SendOp).rank - (b[0] as SendOp).rank)
    .map((xs) => {
      const x = xs[0] as SendOp;
      const to = ranksName([...new Set(xs.map((y) => y.dest))].sort((a, b) => a - b));
      const n = xs.length === 1 ? '' : ` (${xs.length} messages)`;
      return here(x, `${x.fn.name} to ${to}, ${tags} on ${x.comm.name}${n}: never received`);
    });
  return {
    kind: 'unmatched-message',
    severity: 'warning',
    message: `${ranks.length === 1 ? `Rank ${ranks[0]}` : `Ranks ${ranks.join(',')}`} sent ${all.length} messages (${tags}) with ${s.fn.name} on ${s.comm.name} to ${ranksName(dests)} that were never received. Add the matching receives, or remove the sends.`,
    locations,
  };
}

/** The finding of receives never satisfied, of one function, communicator and tag: groups of (rank, site, source). */
function neverSatisfied(sets: readonly RecvOp[][]): EngineFinding {
  const r = (sets[0] as RecvOp[])[0] as RecvOp;
  if (sets.length === 1) {
    const rs = sets[0] as RecvOp[];
    const n = rs.length === 1 ? '' : ` (${rs.length} times)`;
    return {
      kind: 'unmatched-message',
      severity: 'warning',
      message: `Rank ${r.rank}'s ${describeOp(r)}${n} was never satisfied: no matching message was sent. Add the matching send, or cancel and free the request.`,
      locations: [here(r, `${describeOp(r)}: never satisfied`)],
    };
  }
  const all = sets.flat();
  const ranks = [...new Set(all.map((x) => x.rank))].sort((a, b) => a - b);
  const locations = [...sets]
    .sort((a, b) => (a[0] as RecvOp).rank - (b[0] as RecvOp).rank)
    .map((rs) => {
      const x = rs[0] as RecvOp;
      const n = rs.length === 1 ? '' : ` (${rs.length} times)`;
      return here(x, `${describeOp(x)}${n}: never satisfied`);
    });
  return {
    kind: 'unmatched-message',
    severity: 'warning',
    message: `${all.length} receives (${r.fn.name}, ${tagName(r.tag)} on ${r.comm.name}) of ${ranksName(ranks)} were never satisfied: no matching message was sent. Add the matching sends, or cancel and free the requests.`,
    locations,
  };
}

/** The tags of some messages, each once, in the order sent; past eight, how many more (a loop of 10^5 tags). */
function tagList(ops: readonly SendOp[]): string {
  const tags = [...new Set(ops.map((x) => x.tag))];
  const shown = tags.slice(0, 8).map(tagName).join('/');
  return tags.length > 8 ? `${shown}/… ${tags.length - 8} more tags` : shown;
}
