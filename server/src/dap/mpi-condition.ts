/**
 * Conditions of MPI function breakpoints: a small expression language over the call's arguments, named by role
 * (`source`, `dest`, `tag`, `count`, `root`… as native-shim/spec/mpi-api.json gives them) or by parameter name,
 * and over the calling rank (`rank`, its MPI_COMM_WORLD rank). Parsed by hand into a tree and evaluated on
 * numbers: no eval, nothing of the user's text ever runs.
 *
 *   expr    := or
 *   or      := and ('||' and)*
 *   and     := unary ('&&' unary)*
 *   unary   := '!' unary | compare
 *   compare := sum (('==' | '!=' | '<' | '<=' | '>' | '>=') sum)?  |  sum 'in' ranges
 *   sum     := term (('+' | '-') term)*
 *   term    := atom (('*' | '/' | '%') atom)*
 *   atom    := NUMBER | NAME | '-' atom | '(' expr ')'
 *   ranges  := range (',' range)*          range := NUMBER ('-' NUMBER)?
 *
 * `MPI_Recv` with `source == 3 && tag == 7 && rank in 0-3`. Wildcards read as the shim records them:
 * MPI_ANY_SOURCE and MPI_ANY_TAG are -1, MPI_PROC_NULL is -2 (the names ANY_SOURCE, ANY_TAG, PROC_NULL and their
 * MPI_ spellings are accepted). A value is true when it is not 0.
 */
import type { FunctionSpec } from '../engine/model/types';

type Node =
  | { readonly k: 'num'; readonly v: number }
  | { readonly k: 'arg'; readonly name: string }
  | { readonly k: 'not' | 'neg'; readonly a: Node }
  | { readonly k: 'bin'; readonly op: string; readonly a: Node; readonly b: Node }
  | { readonly k: 'in'; readonly a: Node; readonly ranges: readonly (readonly [number, number])[] };

/** What a condition reads: the calling rank and the call's scalar arguments (by parameter name). */
export interface CallValues {
  readonly rank: number;
  readonly args: Readonly<Record<string, number | readonly number[]>>;
}

export interface Condition {
  readonly text: string;
  /** True when the call matches; a role the call does not have reads as no match. */
  matches(call: CallValues): boolean;
}

/** A condition that cannot be parsed or names what the function has not: one line for the user. */
export class ConditionError extends Error {}

const CONSTANTS: Readonly<Record<string, number>> = {
  ANY_SOURCE: -1,
  MPI_ANY_SOURCE: -1,
  ANY_TAG: -1,
  MPI_ANY_TAG: -1,
  PROC_NULL: -2,
  MPI_PROC_NULL: -2,
};

const TOKEN = /\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(==|!=|<=|>=|&&|\|\||[<>!()+\-*/%,]))/y;

function tokenize(text: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < text.length) {
    if (/^\s*$/.test(text.slice(at))) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(text);
    if (m === null) throw new ConditionError(`cannot read "${text.slice(at).trim()}" at column ${at + 1}`);
    out.push((m[1] ?? m[2] ?? m[3]) as string);
    at = TOKEN.lastIndex;
  }
  return out;
}

class Parser {
  private i = 0;
  constructor(private readonly t: readonly string[]) {}

  parse(): Node {
    if (this.t.length === 0) throw new ConditionError('the condition is empty');
    const n = this.or();
    if (this.i < this.t.length) throw new ConditionError(`unexpected "${this.t[this.i]}"`);
    return n;
  }

  private peek(): string | undefined {
    return this.t[this.i];
  }

  private take(want?: string): string {
    const tok = this.t[this.i];
    if (tok === undefined)
      throw new ConditionError(want ? `"${want}" expected at the end` : 'the condition ends too early');
    if (want !== undefined && tok !== want) throw new ConditionError(`"${want}" expected, not "${tok}"`);
    this.i++;
    return tok;
  }

  private or(): Node {
    let a = this.and();
    while (this.peek() === '||') a = { k: 'bin', op: this.take(), a, b: this.and() };
    return a;
  }

  private and(): Node {
    let a = this.unary();
    while (this.peek() === '&&') a = { k: 'bin', op: this.take(), a, b: this.unary() };
    return a;
  }

  private unary(): Node {
    if (this.peek() === '!') {
      this.take();
      return { k: 'not', a: this.unary() };
    }
    const a = this.sum();
    const op = this.peek();
    if (op === '==' || op === '!=' || op === '<' || op === '<=' || op === '>' || op === '>=')
      return { k: 'bin', op: this.take(), a, b: this.sum() };
    if (op === 'in') {
      this.take();
      return { k: 'in', a, ranges: this.ranges() };
    }
    return a;
  }

  private sum(): Node {
    let a = this.term();
    while (this.peek() === '+' || this.peek() === '-') a = { k: 'bin', op: this.take(), a, b: this.term() };
    return a;
  }

  private term(): Node {
    let a = this.atom();
    while (this.peek() === '*' || this.peek() === '/' || this.peek() === '%')
      a = { k: 'bin', op: this.take(), a, b: this.atom() };
    return a;
  }

  private atom(): Node {
    const tok = this.take();
    if (/^\d+$/.test(tok)) return { k: 'num', v: Number(tok) };
    if (tok === '-') return { k: 'neg', a: this.atom() };
    if (tok === '(') {
      const n = this.or();
      this.take(')');
      return n;
    }
    if (/^[A-Za-z_]/.test(tok) && tok !== 'in') {
      const c = CONSTANTS[tok];
      return c !== undefined ? { k: 'num', v: c } : { k: 'arg', name: tok };
    }
    throw new ConditionError(`a number, a name or "(" expected, not "${tok}"`);
  }

  private ranges(): [number, number][] {
    const out: [number, number][] = [];
    for (;;) {
      const lo = this.number();
      let hi = lo;
      if (this.peek() === '-') {
        this.take();
        hi = this.number();
      }
      if (hi < lo) throw new ConditionError(`the range ${lo}-${hi} is empty`);
      out.push([lo, hi]);
      if (this.peek() !== ',') return out;
      this.take();
    }
  }

  private number(): number {
    const tok = this.take();
    if (!/^\d+$/.test(tok)) throw new ConditionError(`a rank number expected in "in", not "${tok}"`);
    return Number(tok);
  }
}

/** Every name the condition reads. */
function names(n: Node, out: Set<string>): Set<string> {
  if (n.k === 'arg') out.add(n.name);
  else if (n.k === 'not' || n.k === 'neg' || n.k === 'in') names(n.a, out);
  else if (n.k === 'bin') {
    names(n.a, out);
    names(n.b, out);
  }
  return out;
}

/** Parameter name of each role and name a condition may use for this function (scalars only). */
function argNames(fn: FunctionSpec): Map<string, string> {
  const m = new Map<string, string>();
  for (const p of fn.params) {
    if (p.lengthFrom !== undefined) continue;
    m.set(p.name, p.name);
    if (!m.has(p.role)) m.set(p.role, p.name);
  }
  return m;
}

/** Thrown inside evaluation when the call lacks a value or divides by zero: the condition does not match. */
class NoMatch extends Error {}
const NO_MATCH = new NoMatch('no match');

/**
 * Parses `text` as a condition on calls of `fn`; throws ConditionError (one line) when it cannot be read or
 * names an argument the function does not have.
 */
export function parseCondition(text: string, fn: FunctionSpec): Condition {
  const tree = new Parser(tokenize(text)).parse();
  const known = argNames(fn);
  for (const name of names(tree, new Set())) {
    if (name === 'rank' || known.has(name)) continue;
    const roles = [...new Set(fn.params.filter((p) => p.lengthFrom === undefined).map((p) => p.role))];
    throw new ConditionError(
      `${fn.name} has no argument "${name}": use rank or one of ${roles.join(', ') || '(none)'}`,
    );
  }
  const value = (n: Node, call: CallValues): number => {
    switch (n.k) {
      case 'num':
        return n.v;
      case 'arg': {
        // `rank` is the calling rank unless the function has an argument of that name (MPI_Group_translate…).
        const param = known.get(n.name);
        if (param === undefined) return call.rank;
        const v = call.args[param];
        if (typeof v !== 'number' || Number.isNaN(v)) throw NO_MATCH;
        return v;
      }
      case 'not':
        return value(n.a, call) === 0 ? 1 : 0;
      case 'neg':
        return -value(n.a, call);
      case 'in': {
        const v = value(n.a, call);
        return n.ranges.some(([lo, hi]) => v >= lo && v <= hi) ? 1 : 0;
      }
      case 'bin': {
        if (n.op === '&&') return value(n.a, call) !== 0 && value(n.b, call) !== 0 ? 1 : 0;
        if (n.op === '||') return value(n.a, call) !== 0 || value(n.b, call) !== 0 ? 1 : 0;
        const a = value(n.a, call);
        const b = value(n.b, call);
        switch (n.op) {
          case '==':
            return a === b ? 1 : 0;
          case '!=':
            return a !== b ? 1 : 0;
          case '<':
            return a < b ? 1 : 0;
          case '<=':
            return a <= b ? 1 : 0;
          case '>':
            return a > b ? 1 : 0;
          case '>=':
            return a >= b ? 1 : 0;
          case '+':
            return a + b;
          case '-':
            return a - b;
          case '*':
            return a * b;
          case '/':
            if (b === 0) throw NO_MATCH;
            return Math.trunc(a / b);
          default:
            if (b === 0) throw NO_MATCH;
            return a % b;
        }
      }
    }
  };
  return {
    text,
    matches(call) {
      try {
        return value(tree, call) !== 0;
      } catch (e) {
        if (e instanceof NoMatch) return false;
        throw e;
      }
    },
  };
}

/**
 * A hit condition (DAP hitCondition): `N` or `>= N` from the N-th hit on, `> N`, `== N` only the N-th, `% N`
 * every N-th. Hits count the calls that met the condition, on every rank.
 */
export function parseHitCondition(text: string): (hits: number) => boolean {
  const m = /^\s*(>=|>|==|%)?\s*(\d+)\s*$/.exec(text);
  if (m === null)
    throw new ConditionError(
      `cannot read the hit count "${text}": use N (from the N-th hit on), >= N, > N, == N or % N`,
    );
  const n = Number(m[2]);
  switch (m[1]) {
    case '>':
      return (h) => h > n;
    case '==':
      return (h) => h === n;
    case '%':
      if (n === 0) throw new ConditionError('the hit count "% 0" divides by zero: use % N with N at least 1');
      return (h) => h % n === 0;
    default:
      return (h) => h >= n;
  }
}
