/**
 * End of run: messages sent and never received, receives never satisfied. One finding per sending call
 * site and receiver, pairing a lost message with the receive that probably meant it (same ranks and
 * communicator, different tag) so the user sees both ends.
 */
import { describeOp, tagName } from '../model/describe';
import type { CheckContext } from '../model/check-context';
import type { Matcher } from './matching';
import type { RecvOp, SendOp } from '../model/ops';
import type { EngineFinding, RawLocation } from '../model/types';
import { ANY_SOURCE } from '../model/types';
import { simulateMatching } from './simulate-matching';

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
  return out.filter((r) => !r.reported).sort((a, b) => a.order - b.order);
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
  const used = new Set<RecvOp>();
  const groups = new Map<string, SendOp[]>();
  for (const s of st.matcher.unmatched()) {
    if (s.reported || inFlight.has(s)) continue;
    const key = `${s.rank}:${s.site}:${s.dest}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  for (const sends of groups.values()) {
    const s = sends[0] as SendOp;
    const n = sends.length === 1 ? 'a message' : `${sends.length} messages`;
    const tags = [...new Set(sends.map((x) => x.tag))].map(tagName).join('/');
    const recv = recvs.find(
      (r) =>
        !used.has(r) &&
        r.rank === s.dest &&
        r.comm === s.comm &&
        (r.source === ANY_SOURCE || r.source === s.srcCommRank),
    );
    const sender = here(s, `${describeOp(s)}: never received`);
    if (recv !== undefined) {
      used.add(recv);
      findings.push({
        kind: 'unmatched-message',
        severity: 'warning',
        message: `Rank ${s.rank} sent ${n} (${tags}) with ${s.fn.name} to rank ${s.dest} that was never received, while rank ${s.dest}'s ${describeOp(recv)} was never satisfied. Make the tags (and communicators) of the send and the receive agree.`,
        locations: [sender, here(recv, `${describeOp(recv)}: never satisfied`)],
      });
      continue;
    }
    findings.push({
      kind: 'unmatched-message',
      severity: 'warning',
      message: `Rank ${s.rank} sent ${n} (${tags}) with ${s.fn.name} to rank ${s.dest} on ${s.comm.name} that rank ${s.dest} never received. Add the matching receive on rank ${s.dest}, or remove the send.`,
      locations: [sender],
    });
  }
  const recvGroups = new Map<string, RecvOp[]>();
  for (const r of recvs) {
    if (used.has(r)) continue;
    const key = `${r.rank}:${r.site}:${r.source}`;
    recvGroups.set(key, [...(recvGroups.get(key) ?? []), r]);
  }
  for (const rs of recvGroups.values()) {
    const r = rs[0] as RecvOp;
    const n = rs.length === 1 ? '' : ` (${rs.length} times)`;
    const locations: RawLocation[] = [here(r, `${describeOp(r)}: never satisfied`)];
    findings.push({
      kind: 'unmatched-message',
      severity: 'warning',
      message: `Rank ${r.rank}'s ${describeOp(r)}${n} was never satisfied: no matching message was sent. Add the matching send, or cancel and free the request.`,
      locations,
    });
  }
  return findings;
}
