/**
 * Reads call arguments by role instead of by name: MPI_Send's peer is "dest", MPI_Sendrecv's send tag is
 * "sendtag"; the engine asks for roles ('dest', 'stag'…) and the spec's tables (FunctionLayout.roleSlot,
 * protocol/spec.ts) say which ENTER word holds each — a scalar's word, or an array section found by walking
 * the lengths of the sections before it. No string is built and no map of arguments exists per call.
 */
import { layouts } from '../../protocol/spec';
import type { ArgValue, CallEnter, FunctionSpec } from './types';

function slotOf(fn: FunctionSpec, role: string): number | undefined {
  return layouts[fn.id]?.roleSlot.get(role);
}

/** Index of the length word of array section k (>= 0) in an ENTER's words. */
function sectionAt(e: CallEnter, k: number): number {
  let at = layouts[e.fn.id]?.scalars.length ?? 0;
  for (let j = 0; j < k; j++) at += 1 + (e.wordAt(at) ?? 0);
  return at;
}

function arrayAt(e: CallEnter, slot: number): number[] {
  const at = sectionAt(e, -slot - 1);
  const len = e.wordAt(at) ?? 0;
  const out = new Array<number>(len);
  for (let i = 0; i < len; i++) out[i] = e.wordAt(at + 1 + i) as number;
  return out;
}

/** The argument with this role, or undefined when the function has no such parameter (or the event left it out). */
export function argOf(e: CallEnter, role: string): ArgValue | undefined {
  const slot = slotOf(e.fn, role);
  if (slot === undefined) return undefined;
  if (slot < 0) return arrayAt(e, slot);
  const v = e.wordAt(slot) as number;
  return v === v ? v : undefined;
}

function scalar(e: CallEnter, role: string): number | undefined {
  const slot = slotOf(e.fn, role);
  if (slot === undefined || slot < 0) return undefined;
  const v = e.wordAt(slot) as number;
  return v === v ? v : undefined; // NaN: left out by a synthetic event
}

/**
 * A scalar argument by role (the first of the roles the function has as a scalar), or `fallback`. Up to three
 * roles, as separate parameters rather than a rest array: this runs several times for every call.
 */
export function num(e: CallEnter, fallback: number, r1: string, r2?: string, r3?: string): number {
  let v = scalar(e, r1);
  if (v === undefined && r2 !== undefined) v = scalar(e, r2);
  if (v === undefined && r3 !== undefined) v = scalar(e, r3);
  return v ?? fallback;
}

/**
 * `num` for one or two roles, resolved for every function when made: the scalar slots of those roles by function
 * id in two typed columns (-1: none), so that reading the argument is two array indexes and the words, not a Map
 * lookup per role per call. For the readers that run for every operation (calls.ts); the same answer as
 * `num(e, fallback, r1, r2)`.
 */
export class RoleReader {
  private readonly first: Int16Array;
  private readonly second: Int16Array;

  constructor(r1: string, r2?: string) {
    this.first = new Int16Array(layouts.length).fill(-1);
    this.second = new Int16Array(layouts.length).fill(-1);
    for (const l of layouts) {
      const slots: number[] = [];
      for (const role of r2 === undefined ? [r1] : [r1, r2]) {
        const slot = slotOf(l.spec, role);
        if (slot !== undefined && slot >= 0) slots.push(slot);
      }
      if (slots[0] !== undefined) this.first[l.spec.id] = slots[0];
      if (slots[1] !== undefined) this.second[l.spec.id] = slots[1];
    }
  }

  num(e: CallEnter, fallback: number): number {
    return this.at(e.fn.id, e.wordArray(), e.wordBase, e.wordCount, fallback);
  }

  /**
   * `num` for a call whose function id and words the caller read already (CallEnter.wordArray, wordBase,
   * wordCount): the handlers that read several roles of one call (calls.ts postSend, newRecv) check the words
   * and load the call's fields once, not once per role.
   */
  at(id: number, words: Float64Array, base: number, count: number, fallback: number): number {
    const a = this.first[id];
    if (a === undefined || a < 0) return fallback;
    if (a < count) {
      const v = words[base + a] as number;
      // NaN: left out by a synthetic event, as in `scalar`.
      if (v === v) return v;
    }
    const b = this.second[id] as number;
    if (b < 0 || b >= count) return fallback;
    const w = words[base + b] as number;
    return w === w ? w : fallback;
  }
}

/** An array argument by role, or [] when absent. */
export function list(e: CallEnter, role: string): readonly number[] {
  const slot = slotOf(e.fn, role);
  return slot === undefined || slot >= 0 ? [] : arrayAt(e, slot);
}

/** The name of the parameter with this role, or undefined. */
export function paramName(fn: FunctionSpec, role: string): string | undefined {
  const layout = layouts[fn.id];
  if (layout === undefined) return undefined;
  for (const p of layout.spec.params) if (p.role === role) return p.name;
  return undefined;
}

export function hasRole(fn: FunctionSpec, role: string): boolean {
  return slotOf(fn, role) !== undefined;
}
