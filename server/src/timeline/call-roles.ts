import type { ArgValue, FunctionSpec } from '../engine/model/types';

/** The parameter names that play the roles the timeline needs, found once per function from the spec. */
export interface CallRoles {
  readonly dest?: string;
  readonly sendTag?: string;
  readonly comm?: string;
  readonly request?: string;
  readonly requests?: string;
  readonly message?: string;
  readonly requestOut?: string;
  readonly messageOut?: string;
}

const cache = new Map<number, CallRoles>();

export function rolesOf(fn: FunctionSpec): CallRoles {
  let r = cache.get(fn.id);
  if (r !== undefined) return r;
  const named = (...roles: string[]): string | undefined =>
    fn.params.find((p) => roles.includes(p.role))?.name;
  r = {
    dest: named('dest'),
    sendTag: named('tag', 'stag'),
    comm: named('comm'),
    request: named('request'),
    requests: named('requests'),
    message: named('message'),
    requestOut: named('request_out'),
    messageOut: named('message_out'),
  };
  cache.set(fn.id, r);
  return r;
}

/** A scalar argument (0 when absent or an array). */
export function scalar(args: Readonly<Record<string, ArgValue>>, name: string | undefined): number {
  if (name === undefined) return 0;
  const v = args[name];
  return typeof v === 'number' ? v : 0;
}

/** An array argument ([] when absent); a scalar counts as a one-element array. */
export function list(args: Readonly<Record<string, ArgValue>>, name: string | undefined): readonly number[] {
  if (name === undefined) return [];
  const v = args[name];
  if (v === undefined) return [];
  return typeof v === 'number' ? [v] : v;
}
