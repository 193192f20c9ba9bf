/**
 * Reads call arguments by role instead of by name: MPI_Send's peer is "dest", MPI_Sendrecv's send tag is
 * "sendtag"; the engine asks for roles ('dest', 'stag'…) and this maps them through the spec once per function.
 */
import type { ArgValue, EnterEvent, FunctionSpec } from './types';

const cache = new Map<FunctionSpec, Map<string, string>>();

function roleNames(fn: FunctionSpec): Map<string, string> {
  let m = cache.get(fn);
  if (m === undefined) {
    m = new Map();
    for (const p of fn.params) if (!m.has(p.role)) m.set(p.role, p.name);
    cache.set(fn, m);
  }
  return m;
}

/** The argument with this role, or undefined when the function has no such parameter. */
export function argOf(e: EnterEvent, role: string): ArgValue | undefined {
  const name = roleNames(e.fn).get(role);
  return name === undefined ? undefined : e.args[name];
}

/** A scalar argument by role (the first role present), or `fallback`. */
export function num(e: EnterEvent, fallback: number, ...roles: string[]): number {
  for (const role of roles) {
    const v = argOf(e, role);
    if (typeof v === 'number') return v;
  }
  return fallback;
}

/** An array argument by role, or [] when absent. */
export function list(e: EnterEvent, role: string): readonly number[] {
  const v = argOf(e, role);
  return typeof v === 'number' || v === undefined ? [] : v;
}

/** The name of the parameter with this role, or undefined. */
export function paramName(fn: FunctionSpec, role: string): string | undefined {
  return roleNames(fn).get(role);
}

export function hasRole(fn: FunctionSpec, role: string): boolean {
  return roleNames(fn).has(role);
}
